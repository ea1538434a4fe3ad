-- ptrace_profiler_command.sql - print the whole ptrace_profiler command
-- line for a session, ready to paste into a root shell on the database
-- server.
--
-- Usage, in SQL*Plus as SYS:
--   SQL> @eventsname                      -- once: writes eventsname.sed
--   SQL> @ptrace_profiler_command 123     -- 123 is the SID
--
-- Same lookup as find_pid_ksustim_ksuseopc.sql (and the same notes on
-- Oracle versions).  The command samples every millisecond for 30 seconds;
-- change -d and -t to taste (see ptrace_profiler --help).

set verify off feedback off heading off pagesize 0 linesize 400 trimspool on

select 'ptrace_profiler -p ' || p.spid
       || ' --ksuseopc ' || (to_number(rawtohex(s.saddr), 'XXXXXXXXXXXXXXXX') + opc.off)
       || ' --ksusetim ' || (to_number(rawtohex(s.saddr), 'XXXXXXXXXXXXXXXX') + tim.off)
       || ' --event-names eventsname.sed -d 1ms -t 30s -o sid' || s.sid || '.folded'
  from v$session s,
       v$process p,
       (select c.kqfcooff off from x$kqfco c, x$kqfta t
         where t.indx = c.kqfcotab and t.kqftanam = 'X$KSUSE' and c.kqfconam = 'KSUSEOPC') opc,
       (select c.kqfcooff off from x$kqfco c, x$kqfta t
         where t.indx = c.kqfcotab and t.kqftanam = 'X$KSUSE' and c.kqfconam = 'KSUSETIM') tim
 where s.paddr = p.addr
   and s.sid = &1;

set verify on feedback on heading on pagesize 100
