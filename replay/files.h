/* files.h — reading a whole file the user named (replay/files.c). Apart from replay.h because the
 * determinism matrix's minimal build (tests/cross.sh) links files.c without the rest of replay/. */
#ifndef VIVARIUM_FILES_H
#define VIVARIUM_FILES_H
#include <stddef.h>
#include <stdint.h>
#include "sim.h"

/* A whole file into a malloc'd buffer, at most RPL_FILE_MAX bytes: 0, or with a sentence in err
 * RPL_EREAD (it cannot be opened or read, or is too large) or RPL_ENOMEM (sim/errors.h).
 * It is the sim_file_reader (ud unused) of the programs that build worlds from files the user
 * names: every viv subcommand, and vivd for the worlds on its own command line (a world that
 * cannot read its file fails with SIM_EFILE and this sentence: the RPL_E… code stays here). */
#define RPL_FILE_MAX (64u * 1024u * 1024u)
int rpl_read_file(void *ud, const char *path, uint8_t **data, size_t *len, char *err,
                  size_t errlen);
extern const sim_file_reader rpl_files;

#endif
