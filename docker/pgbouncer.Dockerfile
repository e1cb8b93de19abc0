# PgBouncer >= 1.21 (Debian 13's 1.24.1) for docker-compose.replicas.yml: transaction pooling with protocol-level
# prepared statements. Its configuration is written at start from the environment (docker/pgbouncer-start.sh).
FROM debian:trixie-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends pgbouncer \
  && rm -rf /var/lib/apt/lists/*
COPY docker/pgbouncer-start.sh /usr/local/bin/pgbouncer-start
USER postgres
EXPOSE 6432
CMD ["sh", "/usr/local/bin/pgbouncer-start"]
