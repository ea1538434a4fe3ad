-- find_pid_ksustim_ksuseopc.sql - the OS pid of a session's server process
-- and the addresses of its X$KSUSE.KSUSEOPC and X$KSUSE.KSUSETIM fields.
--
-- Usage, in SQL*Plus as SYS (the X$ tables are visible to SYS only):
--   SQL> @find_pid_ksustim_ksuseopc 123          -- 123 is the SID
--
-- How: V$SESSION.SADDR is the address of the session's X$KSUSE row in the
-- SGA; X$KQFCO gives the offset of each column of a fixed table (X$KQFTA
-- names the table).  Field address = SADDR + column offset.  The addresses
-- are printed in decimal, as ptrace_profiler --ksuseopc/--ksusetim accept
-- them (0x hex works too).
--
-- Versions: written for 11.2 and 12.1, the releases the original
-- Ptrace_Profiler was used with.  From 12c on, the wait state that
-- V$SESSION shows (EVENT#, STATE, WAIT_TIME_MICRO) is read from X$KSLWT
-- (columns KSLWTEVT, KSLWTINWAIT...), no longer from X$KSUSE.  If the
-- query below returns no row, or the profile shows the session "On CPU"
-- while V$SESSION says it waits, your release does not maintain these two
-- fields: compare with X$KSLWT before relying on the Oracle state frame.

set verify off feedback off
column os_pid   format a10
column ksuseopc format 99999999999999999999
column ksusetim format 99999999999999999999

select p.spid                                               as os_pid,
       to_number(rawtohex(s.saddr), 'XXXXXXXXXXXXXXXX') + opc.off as ksuseopc,
       to_number(rawtohex(s.saddr), 'XXXXXXXXXXXXXXXX') + tim.off as ksusetim
  from v$session s,
       v$process p,
       (select c.kqfcooff off
          from x$kqfco c, x$kqfta t
         where t.indx = c.kqfcotab
           and t.kqftanam = 'X$KSUSE'
           and c.kqfconam = 'KSUSEOPC') opc,
       (select c.kqfcooff off
          from x$kqfco c, x$kqfta t
         where t.indx = c.kqfcotab
           and t.kqftanam = 'X$KSUSE'
           and c.kqfconam = 'KSUSETIM') tim
 where s.paddr = p.addr
   and s.sid = &1;

set verify on feedback on
