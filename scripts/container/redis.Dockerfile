# A stand-in for the official redis image, from Debian's packages (scripts/container/smoke.sh).
ARG BASE=localhost/scoreboard-debian:bookworm
FROM ${BASE}
RUN apt-get update \
  && apt-get install -y --no-install-recommends redis-server \
  && rm -rf /var/lib/apt/lists/*
USER redis
EXPOSE 6379
CMD ["redis-server", "--protected-mode", "no"]
