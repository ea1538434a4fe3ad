-- eventsname.sql - spool a sed file of Oracle wait event names.
--
-- ptrace_profiler --event-names eventsname.sed reads the file directly and
-- writes "event=NAME (Oracle state)" frames; the file also works as a sed
-- script on an existing profile:  sed -f eventsname.sed out.folded
--
-- Usage, in SQL*Plus, as a user that can read V$EVENT_NAME:
--   SQL> @eventsname
-- writes eventsname.sed in the current directory.
--
-- V$EVENT_NAME (EVENT#, NAME) has the same shape from 10g to 19c and later,
-- but event numbers change between versions and patch sets: spool the file
-- from the database whose sessions you profile.
-- In NAME, '\' '/' and '&' are escaped for sed; ptrace_profiler undoes it.

set define off
set echo off feedback off heading off verify off
set pagesize 0 linesize 500 trimspool on termout off

spool eventsname.sed
select 's/\<event#=' || event# || '\>/event='
       || replace(replace(replace(name, '\', '\\'), '/', '\/'), '&', '\&')
       || '/g'
  from v$event_name
 order by event#;
spool off

set termout on feedback on heading on pagesize 100 define on
prompt wrote eventsname.sed
