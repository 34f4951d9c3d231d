// SPDX-License-Identifier: BSD-2-Clause
/* elf_func.c - a function's file offset in an ELF file, read with libelf. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "elf_func.h"

/* The file offset of virtual address vaddr: through the PT_LOAD segment holding it. */
static int vaddr_to_offset(Elf *e, uint64_t vaddr, uint64_t *offset)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz) {
			*offset = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* Is symbol i the default version (no version table, or not hidden: @@ not @)? */
static int default_version(Elf_Data *versym, size_t i)
{
	GElf_Versym v;

	if (!versym || !gelf_getversym(versym, (int)i, &v))
		return 1;
	return !(v & 0x8000); /* VERSYM_HIDDEN */
}

/* In one symbol table: 1 found (best in *vaddr), 0 not. */
static int find_in_symtab(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, Elf_Scn *vscn,
			  const char *func, uint64_t *vaddr)
{
	Elf_Data *d = elf_getdata(scn, NULL), *versym = vscn ? elf_getdata(vscn, NULL) : NULL;
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	int found = 0;

	for (size_t i = 0; d && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || strcmp(name, func))
			continue;
		if (!found || default_version(versym, i))
			*vaddr = sym.st_value;
		found = 1;
		if (default_version(versym, i))
			break;
	}
	return found;
}

int elf_func_offset(const char *path, const char *func, uint64_t *offset)
{
	Elf_Scn *scn = NULL, *versym = NULL;
	uint64_t vaddr = 0;
	int fd, found = 0, err;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto out;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
			versym = scn; /* .gnu.version: one entry per .dynsym symbol */
	}
	/* .dynsym first (what a shared library exports), then .symtab (an unstripped binary) */
	for (int pass = 0; pass < 2 && !found; pass++) {
		GElf_Word want = pass ? (GElf_Word)SHT_SYMTAB : (GElf_Word)SHT_DYNSYM;

		scn = NULL;
		while (!found && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) && sh.sh_type == want)
				found = find_in_symtab(e, scn, &sh, pass ? NULL : versym, func,
						       &vaddr);
		}
	}
	err = found ? vaddr_to_offset(e, vaddr, offset) : -ENOENT;
out:
	if (e)
		elf_end(e);
	close(fd);
	return err;
}
