# --- PostgreSQL's other majors, and one it does not know --------------
# 14, 16, 17 and 18 (npm's servers) and a major the tool does not know:
# 80-postgres's tests against each (its pg_other_majors and
# pg_next_major_test), in a file of their own so that a timing retry runs
# again only the half that missed.
PG_PART=majors
. test/integration/80-postgres.sh
