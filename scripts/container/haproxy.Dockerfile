# A stand-in for the official haproxy image, from Debian's packages (scripts/container/smoke.sh):
# the same configuration path.
ARG BASE=localhost/scoreboard-debian:bookworm
FROM ${BASE}
RUN apt-get update \
  && apt-get install -y --no-install-recommends haproxy \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /usr/local/etc/haproxy
EXPOSE 3000
CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
