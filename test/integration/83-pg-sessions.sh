# --- PostgreSQL's sessions: status, statements, idle, replicas, report --
# 80-postgres's tests of what a session shows - its status read without
# the profiler (pg_status), --pg-queries against pg_stat_activity, an idle
# instance, a streaming replica pair, the report of a lock - against
# Debian's server, in a file of their own so that a timing retry runs
# again only the part that missed (CI's time: 80-postgres whole took
# 223 s of it).
PG_PART=sessions
. test/integration/80-postgres.sh
