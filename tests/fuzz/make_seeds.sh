#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets into tests/fuzz/corpus/<target>/
# (committed; run again only when a format changes). Needs GNU tar and zstd.
# Usage: tests/fuzz/make_seeds.sh  (from the repository root)
set -euo pipefail

out=tests/fuzz/corpus
rm -rf "$out"
mkdir -p "$out"/fuzz_wire "$out"/fuzz_pathcheck "$out"/fuzz_frames_receiver "$out"/fuzz_tar_extract \
	"$out"/fuzz_manifest "$out"/fuzz_handshake "$out"/fuzz_session

# big-endian integers as raw bytes
be() { # bytes value
	local n=$1 v=$2 i
	for ((i = n - 1; i >= 0; i--)); do
		printf '%b' "\\x$(printf %02x $(((v >> (8 * i)) & 255)))"
	done
}

# a wire frame: type payload
wire() {
	be 4 ${#2}
	be 1 "$1"
	be 3 0
	printf '%s' "$2"
}

# a record header (frames.h, version 2): type path_len mode offset length [mtime]
# (with an mtime, the FRAME_F_MTIME flag is set)
frame() {
	printf 'XFR2'
	be 1 "$1"
	if [ $# -ge 6 ]; then be 1 1; else be 1 0; fi
	be 2 "$2"
	be 4 "$3"
	be 4 0
	be 8 "$4"
	be 8 "$5"
	be 8 "${6:-0}"
}

# a whole record: type path mode offset content [mtime]
record() {
	frame "$1" ${#2} "$3" "$4" ${#5} ${6+"$6"}
	printf '%s%s' "$2" "$5"
}

# record types
FILE=1 RANGE=2 END=3 DIR=4 SYMLINK=5 HARDLINK=6

token=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
w=$out/fuzz_wire
wire 1 "{\"proto\":1,\"token\":\"$token\",\"role\":\"control\"}" >"$w/hello"
wire 1 "{\"proto\":1,\"token\":\"$token\",\"role\":\"data\",\"job\":1,\"stream\":0}" >"$w/hello_data"
wire 2 '{"op":"prepare","strategy":"splice","job":7}' >"$w/request"
wire 3 '{"proto":1,"cores":4,"hostname":"h","seconds":0.25,"examples":["a",null,true]}' >"$w/ok"
wire 4 '{"error":"cannot open '\''x'\'': no such file"}' >"$w/error"
frame 1 5 $((0644)) 0 3 >"$w/frame_file"
frame 2 5 $((0600)) 4096 100 >"$w/frame_range"
frame 3 0 0 2 103 >"$w/frame_end"
frame 4 3 $((0555)) 0 0 1600000000 >"$w/frame_dir"
frame 5 4 0 0 16 >"$w/frame_symlink"
frame 6 4 0 0 7 >"$w/frame_hardlink"
frame 1 5 $((0644)) 0 3 $((-5)) >"$w/frame_file_mtime"
manifest=$'# xfercmp-manifest 1\n# workload tiny: 2 files\n'
manifest+=$'0123456789abcdef\t5\t0644\ta/b.txt\n'
manifest+=$'fedcba9876543210\t0\t0600\ttab\\there\\\\back\\nline\n'
printf '%s' "$manifest" >"$w/manifest"
{ be 4 ${#manifest}; be 1 5; be 3 0; printf '%s' "$manifest"; } >"$w/wire_manifest"

p=$out/fuzz_pathcheck
printf 'a/b' >"$p/a_b"
printf '../x' >"$p/dotdot"
printf 'dir/sub/file.txt' >"$p/plain"
printf '/etc/passwd' >"$p/absolute"
printf 'a//b' >"$p/empty_component"
printf 'a/./b' >"$p/dot"
printf 'a/b/' >"$p/trailing_slash"
printf 'a\0b' >"$p/nul"
printf '%0255d/x' 0 >"$p/component_255"
printf 'd/%.0s' {1..63} >"$p/depth_63" && printf 'f' >>"$p/depth_63"

f=$out/fuzz_frames_receiver
{
	record 1 a/b.txt $((0644)) 0 hello
	record 1 c $((0600)) 0 ''
	record 2 big $((0644)) 10 xyz
	record 2 big $((0644)) 0 1234
	frame 3 0 0 4 12
} >"$f/stream"
{
	record 1 group_writable $((0664)) 0 'mode the umask would change'
	record 1 d/e/f/setuid $((04755)) 0 '#!/bin/sh'
	frame 3 0 0 2 36
} >"$f/modes"
{ record 1 ../escape $((0644)) 0 x; frame 3 0 0 1 1; } >"$f/dotdot"
{ record 1 a $((0644)) 0 abc; frame 3 0 0 1 3; printf 'trailing'; } >"$f/after_end"
# (the record is written whole, then cut: head must not end the writer with SIGPIPE)
record 1 cut $((0644)) 0 'the stream ends here' >"$f/truncated.whole"
head -c 50 "$f/truncated.whole" >"$f/truncated"
rm "$f/truncated.whole"
# a file created twice (through io_uring, then directly), a file where a directory must go
{
	record 1 a $((0644)) 0 one
	record 1 a $((0644)) 0 two
	frame 3 0 0 2 6
} >"$f/twice_small"
{
	record 1 w $((0666)) 0 one
	record 1 w $((0666)) 0 two
	frame 3 0 0 2 6
} >"$f/twice_sync"
{ record 1 a $((0644)) 0 x; record 1 a/b $((0644)) 0 y; frame 3 0 0 2 2; } >"$f/file_as_dir"
# a whole tree: directories (a 0555 one filled after its record, an empty one),
# files with mtimes (small, ranges), symbolic links, hard links (one before its primary)
{
	record $DIR ro $((0555)) 0 '' 1600000000
	record $DIR ro/empty $((0700)) 0 '' $((-86400))
	record $HARDLINK early 0 0 ro/f
	record $FILE ro/f $((0444)) 0 hello 1500000000
	record $RANGE ro/r $((0640)) 3 def
	record $RANGE ro/r $((0640)) 0 abc 1500000001
	record $SYMLINK ro/up 0 0 ../../etc/passwd
	record $SYMLINK abs 0 0 /etc/hostname
	record $HARDLINK ro/f2 0 0 ro/f
	frame $END 0 0 9 $((0 + 0 + 4 + 5 + 3 + 3 + 16 + 13 + 4))
} >"$f/tree"
# hostile: a link out of the tree, then a file through it
{
	record $SYMLINK a 0 0 ../../etc
	record $FILE a/passwd $((0644)) 0 'root::0:0::/:/bin/sh'
	frame $END 0 0 2 $((9 + 20))
} >"$f/through_symlink"
# hostile: a directory record over a link, a hard link to a link, to "..", to a directory
{
	record $SYMLINK a 0 0 ..
	record $DIR a $((0777)) 0 '' 5
	frame $END 0 0 2 2
} >"$f/dir_over_symlink"
{
	record $FILE f $((0644)) 0 x
	record $SYMLINK s 0 0 f
	record $HARDLINK h 0 0 s
	frame $END 0 0 3 3
} >"$f/hardlink_to_symlink"
{ record $HARDLINK h 0 0 ../x; frame $END 0 0 1 4; } >"$f/hardlink_dotdot"
{
	record $DIR d $((0755)) 0 ''
	record $HARDLINK h 0 0 d
	frame $END 0 0 2 1
} >"$f/hardlink_to_dir"
# more small files than creates in flight
{
	for i in $(seq -w 1 200); do record 1 "s/$i" $((0644)) 0 "$i"; done
	frame 3 0 0 200 600
} >"$f/many_small"
# larger than what is created in memory: goes by splice, cut short
{ frame 1 3 $((0644)) 0 300000; printf 'big%04096d' 0; } >"$f/large_cut"

t=$out/fuzz_tar_extract
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/src/dir/sub"
printf 'hello\n' >"$tree/src/dir/a.txt"
printf 'x%.0s' {1..700} >"$tree/src/dir/sub/b.bin"
printf 'long name\n' >"$tree/src/dir/sub/$(printf 'n%.0s' {1..120})"
: >"$tree/src/empty"
chmod 0600 "$tree/src/empty"
ln -s dir/a.txt "$tree/src/link"
ln "$tree/src/dir/a.txt" "$tree/src/hard"
mkfifo "$tree/src/fifo"
mkdir -p "$tree/other/dir/a.txt"
tarc() { tar -b 1 -C "$tree/src" --owner=0 --group=0 --numeric-owner --mtime=@0 --sort=name "$@"; }
tarc -cf "$t/gnu.tar" dir empty
tarc --format=pax --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
	-cf "$t/pax.tar" ./dir ./empty
tarc -cf - dir empty | zstd -q -19 -c >"$t/gnu.tar.zst"
tarc -cf "$t/symlink.tar" link
tarc --transform='s,^dir,../dir,' -cf "$t/dotdot.tar" dir/a.txt
tarc -cf - dir/a.txt | head -c 1024 >"$t/truncated.tar"
tarc -cf "$t/hardlink.tar" dir/a.txt hard
tarc -cf "$t/fifo.tar" fifo
tarc --no-recursion -cf "$t/dot.tar" . ./dir ./dir/a.txt
# dir/a.txt, a file, then a directory of that name
tarc -cf "$t/file_then_dir.tar" dir/a.txt -C "$tree/other" dir/a.txt
# a tree of links: relative, absolute, dangling, to a directory, ../../etc/passwd;
# hard links of 3; an empty and a 0555 directory
mkdir -p "$tree/links/d/sub" "$tree/links/empty" "$tree/links/ro"
printf 'x\n' >"$tree/links/d/f"
printf 'r\n' >"$tree/links/ro/in"
ln "$tree/links/d/f" "$tree/links/d/sub/f2"
ln "$tree/links/d/f" "$tree/links/f3"
ln -s ../f3 "$tree/links/d/rel"
ln -s /etc/hostname "$tree/links/abs"
ln -s nowhere "$tree/links/dangling"
ln -s d "$tree/links/todir"
ln -s ../../etc/passwd "$tree/links/up"
chmod 0555 "$tree/links/ro"
tar -b 1 -C "$tree/links" --owner=0 --group=0 --numeric-owner --mtime=@0 --sort=name \
	-cf "$t/links.tar" .
chmod 0755 "$tree/links/ro"
# hostile: a file through a link that leaves (esc -> ../..), a hard link to
# ../x, a hard link to a symbolic link, an entry in a link's place
ln -s ../.. "$tree/src/esc"
: >"$tree/src/evil"
tarc --transform='s,^evil$,esc/evil,' -cf "$t/symlink_escape.tar" esc evil
# (-P keeps the targets as written; listing them strips them again)
tarc -P --transform='s,^dir/a\.txt$,../x,RS' -cf "$t/hardlink_out.tar" dir/a.txt hard
tarc -P --transform='s,^dir/a\.txt$,/etc/passwd,RS' -cf "$t/hardlink_abs.tar" dir/a.txt hard
ln -P "$tree/src/link" "$tree/src/link2"
tarc -cf "$t/hardlink_to_symlink.tar" link link2
mkdir -p "$tree/other2"
printf 'replaced\n' >"$tree/other2/link"
tarc -cf "$t/replace_symlink.tar" link -C "$tree/other2" link

# manifests: version 1, version 2 with every kind of node, and near misses
t=$out/fuzz_manifest
printf '# xfercmp-manifest 1\n0123456789abcdef\t5\t0644\ta/b\n' >"$t/v1"
{
	printf '# xfercmp-manifest 2\n# workload smallfiles files=2\n'
	printf 'd\t0555\t1600000000\tro\n'
	printf 'f\t0123456789abcdef\t5\t0644\t-3\tro/a\\tb\n'
	printf 'h\tro/a\\tb\tc\n'
	printf 'l\t../../etc/passwd\tup\n'
	printf 's\tp\tfifo\n'
} >"$t/tree"
printf '# xfercmp-manifest 2\nh\tmissing\tc\n' >"$t/dangling_hardlink"
printf '# xfercmp-manifest 2\nd\t0755\t1\tx\nl\tt\tx\n' >"$t/two_kinds"

# the handshake (fuzz_handshake.c): a mode byte, then the input
h=$out/fuzz_handshake
nonce=$(printf '%064d' 7)
printf '\0{"proto":6,"role":"control","nonce":"%s"}\0{"proof":"%064d"}' "$nonce" 0 >"$h/agent_hello_auth"
printf '\0{"proto":6,"role":"data","job":3,"stream":1,"nonce":"%s"}' "$nonce" >"$h/agent_hello_data"
{
	printf '\1'
	wire 3 "{\"proto\":6,\"nonce\":\"$nonce\",\"proof\":\"$(printf '%064d' 1)\"}"
	wire 3 '{}'
} >"$h/client_answers"
{ printf '\1'; wire 4 '{"error":"wrong proof of the session key"}'; } >"$h/client_error"
{ printf '\2'; wire 1 "{\"proto\":6,\"role\":\"control\",\"nonce\":\"$nonce\"}"; } >"$h/gate_hello"
{ printf '\2'; be 4 100; be 1 1; be 3 0; printf 'half'; } >"$h/gate_half"
{ printf '\2'; wire 2 '{"op":"info"}'; } >"$h/gate_not_hello"
# the frame reader: an 8-byte header (announced length, type, flags), a 2-byte
# little-endian length, the payload: sealed TYPE FLAGS PAYLOAD
sealed() {
	be 4 ${#3}
	be 1 "$1"
	be 1 "$2"
	be 2 0
	printf '%b' "\\x$(printf %02x $((${#3} & 255)))\\x$(printf %02x $((${#3} >> 8)))"
	printf '%s' "$3"
}
{
	printf '\3'
	sealed 2 1 '{"op":"info"}'
	sealed 5 3 'piece'
	sealed 3 1 '{}'
} >"$h/frames_sealed"

# the session (fuzz_session.c): frames separated by 0x1e, R a request, M/m manifest pieces
s=$out/fuzz_session
rs=$'\x1e'
manifest2=$'# xfercmp-manifest 2\nd\t0755\t1600000000\td\nf\t0123456789abcdef\t5\t0644\t1600000000\td/f\n'
printf 'R{"op":"info"}%sR{"op":"prepare","strategy":"splice"}%sR{"op":"verify","job":1}%sR{"op":"cleanup","job":1}%sR{"op":"bye"}' \
	"$rs" "$rs" "$rs" "$rs" >"$s/requests"
printf 'M%s%sm%s%sR{"op":"prepare","strategy":"zstd"}%sR{"op":"flush","job":1}%sR{"op":"verify","job":1,"claims":31}' \
	"${manifest2:0:30}" "$rs" "${manifest2:30}" "$rs" "$rs" "$rs" >"$s/manifest_pieces"
printf 'R{"op":"sample_start","job":0}%sR{"op":"sample_stop"}%sR{"op":"nope"}%sR[1,2]%sm' \
	"$rs" "$rs" "$rs" "$rs" >"$s/odd_requests"
manifest_big=$'# xfercmp-manifest 2\nf\t0123456789abcdef\t300000\t0644\t1600000000\tbig\n'
mac=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
printf 'M%s%sR{"op":"content_macs","macs":[[0,"%s"],[1,"%s"],[0,"zz"],[0]]}%sR{"op":"prepare","strategy":"splice"}%sR{"op":"verify","job":1}' \
	"$manifest_big" "$rs" "$mac" "$mac" "$rs" "$rs" >"$s/content_macs"
