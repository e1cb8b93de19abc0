#!/bin/bash
# Runs once, when the compose file's PostgreSQL initialises its data: lets the "basalt" role stream the log to the
# standby (docker-compose.replicas.yml). The role is the image's superuser, so it may replicate.
set -euo pipefail
echo "host replication basalt all scram-sha-256" >> "$PGDATA/pg_hba.conf"
