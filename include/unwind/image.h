/* image.h - an ELF file's image rebuilt from the memory of a process.
 *
 * A deleted file that a tracer without CAP_SYS_ADMIN may not open
 * (/proc/PID/map_files needs it) is still in the process's memory: its
 * mappings, each placed at its file offset, give the file's loaded bytes
 * (modules.c reads them).  Two things there are not the file's:
 *  - the section headers lie past the mapped part, or in a page the loader
 *    cleared for .bss: they read as zeros, or as whatever shares the page.
 *    They are dropped (the program headers are read instead: libdw finds
 *    .dynsym through the dynamic segment, libunwind .eh_frame_hdr through
 *    PT_GNU_EH_FRAME);
 *  - glibc's loader relocates the dynamic section in place: its pointers
 *    are addresses in the process, not in the file, and libdw, which sees
 *    the file at bias 0 (files.h), would find no .dynsym.  They are put
 *    back.
 * Pure: bytes in, bytes out.
 */
#ifndef PTRACE_PROFILER_IMAGE_H
#define PTRACE_PROFILER_IMAGE_H

#include <stddef.h>
#include <stdint.h>

/* Fixes image[0..size) (a 64-bit ELF file's mappings at their offsets)
 * as above; load_bias is the address where the process mapped its file
 * offset 0 (0 if none was read).  0, or -1 if it is no 64-bit ELF
 * executable or shared object whose program headers it holds. */
int image_from_memory(uint8_t *image, size_t size, uint64_t load_bias);

#endif
