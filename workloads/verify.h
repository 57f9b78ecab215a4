#ifndef XFERCMP_VERIFY_H
#define XFERCMP_VERIFY_H

#include "content_mac.h"
#include "manifest.h"

#include <stdint.h>
#include <stdio.h>

/*
 * Checks a tree against a manifest. Content and names always: every regular
 * file and hard-link path present as a regular file with the manifest's size
 * and xxh3, nothing extra (a special file the manifest lists as left out is
 * not extra when a tool made it all the same). Beside that, what a migration may or may not keep,
 * counted per kind so that each strategy is held to what it claims to carry
 * (enum preserve_bits) and the rest is reported, not failed:
 *  - symbolic links: present as links with the same text. A link that
 *    arrived as what it pointed to (a tool that follows links) counts as not
 *    kept, and so does everything found below it, not as extra entries;
 *  - hard links: the paths of one group share one inode (a separate file with
 *    the right content is "copied": content kept, the link not);
 *  - empty directories: every directory of the manifest exists;
 *  - modes: permission bits and the sticky bit of files and directories
 *    (set-user-ID and set-group-ID are left out of the comparison: safe
 *    receivers drop them);
 *  - mtimes: of files and directories, to the second.
 * The first few differences are kept by name so a person can look at them.
 */

enum preserve_bits {
	PRESERVE_SYMLINKS = 1 << 0,
	PRESERVE_HARDLINKS = 1 << 1,
	PRESERVE_EMPTY_DIRS = 1 << 2,
	PRESERVE_MODES = 1 << 3,
	PRESERVE_MTIMES = 1 << 4,
};
#define PRESERVE_ALL 0x1fu
#define PRESERVE_KINDS 5

/* "symlinks", "hardlinks", "empty_dirs", "modes", "mtimes" for bit i (0..PRESERVE_KINDS-1). */
const char *preserve_name(unsigned i);

#define VERIFY_EXAMPLES 8

struct verify_report {
	/* content and names: any of these fails every strategy */
	uint64_t files_ok, bytes_ok;
	uint64_t missing, extra, size_differs, content_differs, not_regular;
	uint64_t integrity_failed;	/* keyed hash missing or not the client's (verify_keyed) */
	/* tree features */
	uint64_t symlinks_ok, symlinks_differ;
	uint64_t hardlinks_linked, hardlinks_copied;
	uint64_t dirs_ok, dirs_missing;
	uint64_t modes_differ, mtimes_differ;
	unsigned nexamples;
	char examples[VERIFY_EXAMPLES][512];
};

/* Differences in content and names (what fails every strategy). */
uint64_t verify_differences(const struct verify_report *r);

/*
 * Of the kinds the manifest holds (*present: a bit for each kind m has,
 * e.g. no PRESERVE_SYMLINKS for a tree without links; modes and mtimes
 * whenever it has files or directories with them known), the ones the copy
 * kept. Returns the kept bits (a subset of *present).
 */
unsigned verify_preserved(const struct manifest *m, const struct verify_report *r,
			  unsigned *present);

/*
 * Differences that fail a strategy claiming `claims` (enum preserve_bits):
 * content and names, plus those of each claimed kind.
 */
uint64_t verify_failures(const struct verify_report *r, unsigned claims);

/*
 * Verifies root against m using `threads` hashing threads. Returns 0 when the
 * check ran (look at verify_differences), -1 (error set) when it could not
 * run, e.g. root is unreadable.
 */
int verify_tree(const char *root, const struct manifest *m, unsigned threads,
		struct verify_report *r);

/* A directory whose mode the walk must take as `mode`, not as it finds it (opened up to be read). */
struct verify_mode_note {
	char *path;	/* relative to the root */
	uint32_t mode;
};

/* verify_tree, taking the n notes' modes for those directories. */
int verify_tree_noted(const char *root, const struct manifest *m, unsigned threads,
		      const struct verify_mode_note *notes, size_t n, struct verify_report *r);

/*
 * The keyed check (content_mac.h) of the files whose content crossed the
 * network raw (transfer/stream/frames.h): every file that should hold the
 * content of a manifest entry larger than min_size must have the keyed
 * hash under key that the client sent for that entry (macs[i], have[i]
 * non-zero when it was sent, i the entry's index); a missing or different
 * one counts in integrity_failed, named "integrity check failed".
 */
struct verify_keyed {
	const unsigned char *key;	/* CONTENT_KEY_BYTES */
	uint64_t min_size;
	const unsigned char (*macs)[CONTENT_MAC_BYTES];	/* per manifest entry */
	const unsigned char *have;		/* per manifest entry */
};

/* verify_tree_noted, with the keyed check when keyed is not NULL. */
int verify_tree_keyed(const char *root, const struct manifest *m, unsigned threads,
		      const struct verify_mode_note *notes, size_t n, const struct verify_keyed *keyed,
		      struct verify_report *r);

/*
 * One line on content: "12000 files, 47.2 MiB verified" or "3 differences:
 * 1 missing, ...", then, for a tree with links or directories, what was kept
 * ("; symlinks 40/40, hardlinks 0/12 (copied), ...").
 */
void verify_summary(const struct verify_report *r, char *buf, size_t len);

#endif
