#!/usr/bin/env bash
# A hot standby of the local PostgreSQL (127.0.0.1:5432) by streaming replication, for the replica
# tests: `pg_basebackup -R` into a scratch directory, served on 127.0.0.1:$STANDBY_PORT (5433).
#   scripts/pg-standby.sh start | stop | status
# start takes a new backup each time, replacing a standby left running by an earlier run: with no
# replication slot the primary recycles WAL such a standby may still need, and it then never catches up
# (a test run after a bench load waited in vain for its database). Needs root or the postgres user: it lets loopback
# replication connections in (a `host replication all 127.0.0.1/32 trust` line in pg_hba.conf) and
# runs the standby as the postgres user.
set -euo pipefail
PORT=${STANDBY_PORT:-5433}
DIR=${STANDBY_DIR:-/tmp/parish-standby-$PORT}
PRIMARY=(-h 127.0.0.1 -p 5432 -U postgres)
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$BIN" ] || BIN=$(dirname "$(command -v pg_ctl)")
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case "${1:-start}" in
  start)
    if [ -f "$DIR/postmaster.pid" ]; then as_pg "$BIN/pg_ctl" -D "$DIR" -m fast -w stop > /dev/null || true; fi
    hba=$(psql "${PRIMARY[@]}" -Atc 'show hba_file')
    if ! grep -Eq '^host[[:space:]]+replication[[:space:]]+all[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$hba"; then
      echo 'host replication all 127.0.0.1/32 trust' >> "$hba"
      psql "${PRIMARY[@]}" -qAtc 'select pg_reload_conf()' > /dev/null
    fi
    # A directory left by an earlier run may be too far behind the primary's WAL: take a new backup.
    rm -rf "$DIR"
    mkdir -p "$DIR"
    chmod 700 "$DIR"
    [ "$(id -u)" = 0 ] && chown postgres: "$DIR"
    as_pg "$BIN/pg_basebackup" "${PRIMARY[@]}" -D "$DIR" -R -X stream -c fast
    # Debian keeps the configuration outside the data directory: the standby gets its own.
    as_pg tee "$DIR/postgresql.conf" > /dev/null <<CONF
port = $PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR'
hot_standby = on
max_connections = 100
shared_buffers = 128MB
CONF
    as_pg tee "$DIR/pg_hba.conf" > /dev/null <<HBA
local all all trust
host all all 127.0.0.1/32 trust
HBA
    as_pg "$BIN/pg_ctl" -D "$DIR" -l "$DIR/standby.log" -w -t 60 start > /dev/null
    ;;
  stop)
    if [ -f "$DIR/postmaster.pid" ]; then as_pg "$BIN/pg_ctl" -D "$DIR" -m fast -w stop > /dev/null; fi
    ;;
  restart-only)
    # Start an existing standby directory again (after stop), without a new backup.
    as_pg "$BIN/pg_ctl" -D "$DIR" -l "$DIR/standby.log" -w -t 60 start > /dev/null
    ;;
  status)
    pg_isready -h 127.0.0.1 -p "$PORT"
    ;;
  *) echo "usage: $0 start|stop|restart-only|status" >&2; exit 2 ;;
esac
