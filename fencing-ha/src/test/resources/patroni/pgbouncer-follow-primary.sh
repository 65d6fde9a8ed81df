#!/bin/sh
# Patroni's on_role_change callback: when this node becomes the primary, point PgBouncer at it.
#
# In each node's Patroni YAML, with that node's own address (Patroni appends <action> <role> <scope>):
#
#   postgresql:
#     callbacks:
#       on_role_change: /etc/patroni/pgbouncer-follow-primary.sh /etc/patroni/pgbouncers 10.0.0.1 5432
#
# The list file names one PgBouncer a line: its ini and its pidfile, both on this machine.
# For each, the host= and port= of every [databases] entry become this node's, the new ini
# replaces the old one in one rename (PgBouncer never reads half a file), and PgBouncer reloads
# it (SIGHUP, what RELOAD on its admin console does). For any other role, or without the list
# file, it does nothing. It runs as the user Patroni runs as, who must own the ini's directory
# and may signal PgBouncer (the same user).
list=$1 host=$2 port=$3 action=$4 role=$5
case $role in
  master | primary) ;; # Patroni 3.0 says master, 3.1 and later primary
  *) exit 0 ;;
esac
[ -r "$list" ] || exit 0
status=0
while read -r ini pidfile; do
  [ -n "$ini" ] || continue
  tmp="$ini.$$"
  if awk -v host="$host" -v port="$port" '
      /^[ \t]*\[/ { databases = ($0 ~ /^[ \t]*\[databases\]/) }
      databases && /=/ { gsub(/host=[^ \t]*/, "host=" host); gsub(/port=[0-9]+/, "port=" port) }
      { print }' "$ini" >"$tmp" && mv -f "$tmp" "$ini" && kill -HUP "$(cat "$pidfile")"; then
    echo "$(date -u '+%F %T.%3N') $action $role: $ini now points at $host:$port"
  else
    echo "$(date -u '+%F %T.%3N') $action $role: could not point $ini at $host:$port" >&2
    rm -f "$tmp"
    status=1
  fi
done <"$list"
exit $status
