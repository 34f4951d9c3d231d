/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * elf_func.h - where a function lies in an ELF file, as the file offset a
 * uprobe wants (record --iter uprobe:FILE:FUNC).
 */
#ifndef TAILCAUSE_RECORD_ELF_FUNC_H
#define TAILCAUSE_RECORD_ELF_FUNC_H

#include <stdint.h>

/*
 * The file offset of function func's entry in the ELF file path: a defined
 * STT_FUNC (or GNU indirect function) symbol of that name in .dynsym or .symtab;
 * of several versions (clock_nanosleep@GLIBC_2.2.5 and @@GLIBC_2.17) the default
 * one. 0, -ENOENT (no such function), -ENOEXEC (not ELF) or -errno.
 */
int elf_func_offset(const char *path, const char *func, uint64_t *offset);

#endif /* TAILCAUSE_RECORD_ELF_FUNC_H */
