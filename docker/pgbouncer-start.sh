#!/bin/sh
# Writes PgBouncer's configuration from the environment, then runs it in the foreground.
# DB_HOST, DB_PORT, DB_USER, DB_PASSWORD: the primary and the role Basalt logs in as.
set -eu
dir=/tmp/pgbouncer
mkdir -p "$dir"
umask 077
printf '"%s" "%s"\n' "$DB_USER" "$DB_PASSWORD" > "$dir/users.txt"
cat > "$dir/pgbouncer.ini" <<INI
[databases]
* = host=$DB_HOST port=${DB_PORT:-5432}

[pgbouncer]
listen_addr = 0.0.0.0
listen_port = 6432
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $dir/users.txt
pool_mode = transaction
; each Basalt record connection keeps up to 200 named statements, closed by the protocol's Close message
max_prepared_statements = 200
default_pool_size = 20
max_client_conn = 1000
; a busy pool answers quickly, as a direct connection does
query_wait_timeout = 5
; after a failed login to the server (an outage), try again within a second rather than 15
server_login_retry = 1
server_reset_query =
INI
exec pgbouncer "$dir/pgbouncer.ini"
