/* SPDX-License-Identifier: MIT */
/*
 * crc32c.h - CRC32C (Castagnoli), the checksum of every on-disk block.
 *
 * ut_crc32c() picks the SSE4.2 instruction when the CPU has it and a
 * slicing-by-8 table otherwise; both variants are exported so tests can
 * check that they agree.
 */
#ifndef UNTORN_CRC32C_H
#define UNTORN_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continue a CRC: pass 0 to start, the previous result to chain. */
uint32_t ut_crc32c(uint32_t crc, const void *buf, size_t len);
uint32_t ut_crc32c_table(uint32_t crc, const void *buf, size_t len);
/* Returns 0 when the CPU lacks SSE4.2 (then the hw variant must not be called). */
int ut_crc32c_hw_available(void);
uint32_t ut_crc32c_hw(uint32_t crc, const void *buf, size_t len);
/* "sse4.2" or "table": what ut_crc32c() uses. */
const char *ut_crc32c_impl(void);

#endif
