// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sniff.c - what a file is when it is no trace (see sniff.h).
 *
 * Magic numbers at fixed offsets first; then, for anything else, whether
 * it can be text at all: a NUL byte, or more than one byte in eight below
 * 0x20 other than tab, newline, carriage return, vertical tab, form feed
 * and escape, makes it binary.  Text of the wrong kind (a vmstat file, a
 * log) goes on to the text reader, whose skip counts say what it found.
 */
#include <stdio.h>
#include <string.h>

#include "trace/sniff.h"

static const char give[] = "give a trace: " PS_TRACE_FORMATS;

struct magic {
	size_t off, len;
	const char *bytes;
	const char *what;
	const char *todo;
};

static const struct magic magics[] = {
	{ 0, 8, "2ELIFREP", "a perf.data of a big-endian machine",
	  "pagesim reads perf.data of little-endian machines: run 'perf script' on it there and give that text" },
	{ 0, 8, "PERFFILE", "a perf.data in the first (pre-2.6.36) format",
	  "pagesim reads the PERFILE2 format: run 'perf script' on it and give that text" },
	{ 0, 4, "\x04\x22\x4d\x18", "lz4 data",
	  "decompress it (lz4 -d FILE), or compress the trace with zstd, xz or gzip, which pagesim reads as they are" },
	{ 0, 2, "\x1f\x9d", "compress (.Z) data",
	  "decompress it (gzip -d FILE), or compress the trace with zstd, xz or gzip, which pagesim reads as they are" },
	{ 0, 2, "\x1f\x8b", "gzip data of a compression method other than deflate",
	  "decompress it with the tool that wrote it" },
	{ 0, 4, "PK\x03\x04", "a zip archive", "extract the trace from it (unzip FILE) and give that" },
	{ 0, 4, "PK\x05\x06", "an empty zip archive", "extract the trace from it (unzip FILE) and give that" },
	{ 0, 6, "7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "extract the trace from it (7z x FILE) and give that" },
	{ 0, 6, "Rar!\x1a\x07", "a RAR archive", "extract the trace from it and give that" },
	{ 257, 5, "ustar", "a tar archive", "extract the trace from it (tar -xf FILE) and give that" },
	{ 0, 8, "!<arch>\n", "an ar archive (a .deb or a static library)", give },
	{ 0, 8, "\x89PNG\r\n\x1a\n", "a PNG image", give },
	{ 0, 3, "\xff\xd8\xff", "a JPEG image", give },
	{ 0, 6, "GIF87a", "a GIF image", give },
	{ 0, 6, "GIF89a", "a GIF image", give },
	{ 0, 5, "%PDF-", "a PDF document", give },
	{ 0, 16, "SQLite format 3", "an SQLite database", give },
	{ 0, 4, "\xd4\xc3\xb2\xa1", "a pcap capture", give },
	{ 0, 4, "\xa1\xb2\xc3\xd4", "a pcap capture", give },
	{ 0, 4, "\x4d\x3c\xb2\xa1", "a pcap capture", give },
	{ 0, 4, "\x0a\x0d\x0d\x0a", "a pcapng capture", give },
	{ 0, 4, "\xc1\x1f\xfc\xc1", "a CTF trace stream (LTTng)",
	  "record the kmem page events with pagesim record, trace-cmd or perf instead" },
};

static const char elf_todo[] =
	"to trace what a program does, run it under 'pagesim record -o trace.pgs -- PROGRAM'";

static int sniff_elf(const uint8_t *h, size_t n, struct ps_sniff *out)
{
	unsigned int type;

	if (n < 18 || memcmp(h, "\x7f" "ELF", 4))
		return 0;
	/* e_type, in the byte order of e_ident[EI_DATA] */
	type = h[5] == 2 ? (unsigned int)h[16] << 8 | h[17] : (unsigned int)h[17] << 8 | h[16];
	switch (type) {
	case 1:
		snprintf(out->what, sizeof(out->what), "an ELF relocatable object");
		out->todo = give;
		break;
	case 2:
		snprintf(out->what, sizeof(out->what), "an ELF executable");
		out->todo = elf_todo;
		break;
	case 3:
		snprintf(out->what, sizeof(out->what), "an ELF executable or shared library");
		out->todo = elf_todo;
		break;
	case 4:
		snprintf(out->what, sizeof(out->what), "an ELF core dump");
		out->todo = give;
		break;
	default:
		snprintf(out->what, sizeof(out->what), "an ELF file");
		out->todo = give;
		break;
	}
	return 1;
}

/* "BZh", the block size '1'-'9', then a block's or the end's magic */
static int is_bzip2(const uint8_t *h, size_t n)
{
	return n >= 10 && !memcmp(h, "BZh", 3) && h[3] >= '1' && h[3] <= '9' &&
	       (!memcmp(h + 4, "\x31\x41\x59\x26\x53\x59", 6) || !memcmp(h + 4, "\x17\x72\x45\x38\x50\x90", 6));
}

int ps_sniff_foreign(const uint8_t *h, size_t n, struct ps_sniff *out)
{
	size_t ctl = 0, i;

	if (is_bzip2(h, n)) {
		snprintf(out->what, sizeof(out->what), "bzip2 data");
		out->todo = "decompress it (bunzip2 -k FILE), or compress the trace with zstd, xz or gzip, which pagesim reads as they are";
		return 1;
	}
	for (i = 0; i < sizeof(magics) / sizeof(magics[0]); i++) {
		const struct magic *m = &magics[i];

		if (n >= m->off + m->len && !memcmp(h + m->off, m->bytes, m->len)) {
			snprintf(out->what, sizeof(out->what), "%s", m->what);
			out->todo = m->todo;
			return 1;
		}
	}
	if (sniff_elf(h, n, out))
		return 1;
	for (i = 0; i < n && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n' || h[i] == '\r'); i++)
		;
	if (i < n && h[i] == '{') {
		snprintf(out->what, sizeof(out->what), "JSON text (pagesim's --format json output?)");
		out->todo = give;
		return 1;
	}
	for (i = 0; i < n; i++) {
		uint8_t c = h[i];

		if (!c)
			break;
		ctl += c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f' && c != 0x1b;
	}
	if (i == n && ctl * 8 <= n)
		return 0;
	snprintf(out->what, sizeof(out->what), "binary data of no format pagesim knows (it starts %02x %02x %02x %02x)",
		 n > 0 ? h[0] : 0, n > 1 ? h[1] : 0, n > 2 ? h[2] : 0, n > 3 ? h[3] : 0);
	out->todo = give;
	return 1;
}
