# A stand-in for the official postgres image, from Debian's packages, for scripts/container/smoke.sh
# on machines that cannot pull images. It reads the same POSTGRES_USER, POSTGRES_PASSWORD and
# POSTGRES_DB on first start.
ARG BASE=localhost/scoreboard-debian:bookworm
FROM ${BASE}
RUN apt-get update \
  && apt-get install -y --no-install-recommends postgresql-15 \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
  && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \
  && chmod 700 /var/lib/postgresql/data
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
USER postgres
EXPOSE 5432
ENTRYPOINT ["bash", "/usr/local/bin/postgres-entrypoint.sh"]
