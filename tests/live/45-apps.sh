#!/bin/bash
# USDT in real programs, as Debian ships them: PostgreSQL 15 (query text,
# transactions, checkpoints) and the JVM's hotspot probes (libjvm.so).
# They have more probes than our own test programs, with semaphores, many
# call sites and arguments in memory: probes alike share a program there
# (sharing.c, groups__build), and each event must still name its own
# probe and carry that probe's arguments.  As root (uprobes).
. "$(dirname "$0")/helpers.bash"
needs_root apps
scratch_dir
# events_of FILE FUNC: how many JSON events in FILE are FUNC's.
events_of() { events "$1" | jq -r --arg f "$2" 'select(.func == $f) | .func' | wc -l; }

# --- PostgreSQL: a single-user backend runs one query ---
PG=$(ls -d /usr/lib/postgresql/*/bin/postgres 2>/dev/null | sort -V | tail -1)
if [ -z "$PG" ] || ! id postgres >/dev/null 2>&1; then
	fail pg_installed "no /usr/lib/postgresql/*/bin/postgres or no user postgres (scripts/install-deps installs postgresql)"
else
	PGBIN=$(dirname "$PG")
	chown postgres "$tmp"
	# As postgres: the server refuses to run as root.
	as_pg() { su postgres -s /bin/sh -c "$*"; }
	if as_pg "'$PGBIN/initdb' -D '$tmp/db'" >"$tmp/initdb.log" 2>&1; then
		pass pg_initdb
	else
		fail pg_initdb "$(tail -5 "$tmp/initdb.log")"
	fi
	query="select 4242 as ksnoop_marker;"
	# A single-user backend (no port, no socket: its data directory is
	# ours alone), held before it starts: the shell that becomes it waits
	# to open the pipe it reads its query from.  Its pid is the one for -p
	# (setpriv execs, no child), and ksnoop attaches before it runs
	# anything traced: its start-up transaction is then traced whole.  (It
	# used to start at once, ksnoop attaching its probes meanwhile: on a
	# loaded machine a transaction could start before its start probe was
	# attached and commit after the commit probe was, and not pair.)
	# Another server on the machine (Debian starts one) stays out.
	pg_backend() {
		rm -f "$tmp/q"; mkfifo "$tmp/q"
		setpriv --reuid=postgres --regid=postgres --init-groups \
			"$PG" --single -D "$tmp/db" postgres <"$tmp/q" >"$tmp/pg.log" 2>&1 &
		PGPID=$!
	}
	# The query, then end of file: the backend runs it and exits.
	pg_query() {
		echo "$query" >"$tmp/q"
		wait "$PGPID" 2>/dev/null
	}

	# Each transaction (start-up's, the query's) starts and commits with
	# the same local id, the first (start-up's, id 1) traced from its start.
	transactions_pair() {
		local starts commits
		starts=$(events "$1" | jq -r 'select(.func == "postgresql:transaction__start") | .values.arg0' | sort -n | joined)
		commits=$(events "$1" | jq -r 'select(.func == "postgresql:transaction__commit") | .values.arg0' | sort -n | joined)
		if [ "${starts%% *}" = 1 ] && [ "$starts" = "$commits" ]; then
			echo yes
		else
			echo "starts: '$starts' commits: '$commits'"
		fi
	}

	# The shutdown checkpoint, once.  Its end passes arguments at
	# symbols' addresses ("-4@NBuffers(%rip)",
	# "-4@40+CheckpointStats(%rip)"), which libbpf 1.5 refuses: ksnoop
	# attaches those probes itself, and reads the values the server has.
	# NBuffers is shared_buffers in 8 KiB pages (what `postgres -C
	# shared_buffers` prints); the shutdown checkpoint of a fresh database
	# writes at least one buffer.
	ks_case <<'CASE'
NAME     pg_all
BEFORE   pg_backend
RUN      -j -p "$PGPID" usdt "$PG:postgresql:*"
WORKLOAD pg_query
EXPECT   pg_all_status: exit 0
EXPECT   pg_all_shared: stderr 'postgresql:[a-z_]+ and [1-9][0-9]* more probe\(s\): one program'
EXPECT   pg_one_query: eq 1 "$(events_of "$OUT" postgresql:query__start)"
EXPECT   pg_query_done: eq 1 "$(events_of "$OUT" postgresql:query__done)"
EXPECT   pg_checkpoint_start: eq 1 "$(events_of "$OUT" postgresql:checkpoint__start)"
EXPECT   pg_checkpoint_done: eq 1 "$(events_of "$OUT" postgresql:checkpoint__done)"
EXPECT   pg_own_attach: stderr \
         'postgresql:checkpoint__done: 1 call site\(s\) attached by ksnoop \(libbpf does not parse'
EXPECT   pg_checkpoint_written: text '^[1-9][0-9]*$' \
         "$(events "$OUT" | jq -r 'select(.func == "postgresql:checkpoint__done") | .values.arg0')"
EXPECT   pg_none_left_out: stderr 'postgresql:\*: [0-9]+ probe\(s\) match, [0-9]+ traced, 0 left out'
EXPECT   pg_transactions_pair: eq yes "$(transactions_pair "$OUT")"
EXPECT   pg_the_backend: eq "$PGPID" "$(events "$OUT" | jq -r .pid | sort -u | joined)"
EXPECT   pg_nothing_left: eq "" "$(left_progs "$PROGS")"
EXPECT   pg_no_probe_left_out: eq 0 "$(grep -Ec 'postgresql:[a-z_]+ left out' "$ERR")"
CASE
	# The server is down: its configuration says what NBuffers held.
	nbuffers=$(as_pg "'$PG' -C shared_buffers -D '$tmp/db'" 2>&1)
	expect_match pg_nbuffers_known '^[1-9][0-9]*$' "$nbuffers"
	expect_eq pg_checkpoint_nbuffers "$nbuffers" \
		"$(events "$OUT" | jq -r 'select(.func == "postgresql:checkpoint__done") | .values.arg1')"

	# info marks no PostgreSQL probe's argument as unreadable; the
	# buffer sync's end lists NBuffers where the note has it.
	out=$(ks info usdt "$PG" 2>&1)
	expect_no_match pg_info_all_readable 'not readable' "$out"
	expect_match pg_info_rip_symbol '^postgresql +buffer__sync__done .* arg0:s32@NBuffers\(%rip\) ' "$out"

	# The query's text, read from the server's memory.
	ks_case <<'CASE'
NAME     pg_query_text
BEFORE   pg_backend
RUN      -j -p "$PGPID" usdt "$PG:postgresql:query__start(arg0:str)"
WORKLOAD pg_query
EXPECT   eq "$query" "$(events "$OUT" | jq -r '.values["arg0:str"] | rtrimstr("\n")')"
CASE

	# The user stack of the query probe, named from the server's symbols
	# (its exported functions: the backend's main loop, main); the
	# innermost frame is the probe's own site, in the server.
	ks_case <<'CASE'
NAME     pg_stack
BEFORE   pg_backend
RUN      -j -s -p "$PGPID" usdt "$PG:postgresql:query__start"
WORKLOAD pg_query
EXPECT   pg_stack_main_loop: text "^PostgresMain\+0x[0-9a-f]+ \($PG\)$" "$(events "$OUT" | jq -r '.stack[]' 2>/dev/null)"
EXPECT   pg_stack_main: text "^main\+0x[0-9a-f]+ \($PG\)$" "$(events "$OUT" | jq -r '.stack[]' 2>/dev/null)"
EXPECT   pg_stack_libc: text '^__libc_start_call_main\+0x[0-9a-f]+ \(.*/libc\.so\.6\)$' "$(events "$OUT" | jq -r '.stack[]' 2>/dev/null)"
EXPECT   pg_stack_innermost: text "\($PG(\+0x[0-9a-f]+)?\)$" "$(events "$OUT" | jq -r '.stack[]' 2>/dev/null | head -1)"
CASE
fi

# --- the JVM: java -version starts and stops the VM and its threads ---
# Only ours (-p): other JVMs on the machine (another run of this script)
# fire the same probes.  Its shell waits on a pipe until ksnoop has
# attached, then becomes java (the same pid).
JAVA=$(command -v java || true)
JVM=$( [ -n "$JAVA" ] && ls "$(dirname "$(readlink -f "$JAVA")")"/../lib/server/libjvm.so 2>/dev/null)
if [ -z "$JVM" ]; then
	fail jvm_installed "no java with lib/server/libjvm.so (scripts/install-deps installs openjdk-17-jre-headless)"
else
	# java, held until jvm_go: its shell waits on a fifo.
	jvm_held() {
		rm -f "$tmp/jgo"; mkfifo "$tmp/jgo"
		bash -c 'read -r _ <"$0"; exec "$1" -version' "$tmp/jgo" "$JAVA" >/dev/null 2>&1 &
		JPID=$!
	}
	jvm_go() {
		echo go >"$tmp/jgo"
		wait "$JPID"
	}
	# at_least N COUNT: "yes" when COUNT >= N, else COUNT.
	at_least() { if [ "$2" -ge "$1" ]; then echo yes; else echo "$2"; fi; }
	# thread__start(name, length, java id, native id): a new thread fires it
	# itself, so the native id is the event's own tid.  class__loaded(name,
	# length, loader, shared): a length, never a pointer.
	ks_case <<'CASE'
NAME     jvm
BEFORE   jvm_held
RUN      -j -p "$JPID" usdt "$JVM:hotspot:*"
WORKLOAD jvm_go
EXPECT   jvm_status: exit 0
EXPECT   jvm_shared: stderr 'hotspot:[a-z_]+ and [1-9][0-9]* more probe\(s\): one program'
EXPECT   jvm_init_begin: eq 1 "$(events_of "$OUT" hotspot:vm__init__begin)"
EXPECT   jvm_init_end: eq 1 "$(events_of "$OUT" hotspot:vm__init__end)"
EXPECT   jvm_shutdown: eq 1 "$(events_of "$OUT" hotspot:vm__shutdown)"
EXPECT   jvm_threads: eq yes "$(at_least 5 "$(events_of "$OUT" hotspot:thread__start)")"
EXPECT   jvm_thread_native_id: eq 0 \
         "$(events "$OUT" | jq -r 'select(.func == "hotspot:thread__start") | select(.values.arg3 != .tid) | .tid' | wc -l)"
EXPECT   jvm_class_name_length: eq 0 \
         "$(events "$OUT" | jq -r 'select(.func == "hotspot:class__loaded") | select(.values.arg1 < 1 or .values.arg1 > 4096) | .tid' | wc -l)"
EXPECT   jvm_the_process: eq "$JPID" "$(events "$OUT" | jq -r .pid | sort -u | joined)"
EXPECT   jvm_nothing_left: eq "" "$(left_progs "$PROGS")"
CASE
	# class__loaded(name, length, ...): the name is not NUL-terminated;
	# arg0:str(arg1) reads exactly its length, nothing after it.
	ks_case <<'CASE'
NAME     jvm_class_names
BEFORE   jvm_held
RUN      -j -p "$JPID" usdt "$JVM:hotspot:class__loaded(arg0:str(arg1), arg1)"
WORKLOAD jvm_go
EXPECT   jvm_class_loaded: eq yes "$(at_least 100 "$(events_of "$OUT" hotspot:class__loaded)")"
EXPECT   jvm_class_object: eq "java/lang/Object" \
         "$(events "$OUT" | jq -r '.values["arg0:str(arg1)"] | select(. == "java/lang/Object")')"
EXPECT   jvm_class_name_is_its_length: eq 0 \
         "$(events "$OUT" | jq -r 'select((.values["arg0:str(arg1)"] | length) != .values.arg1) | .tid' | wc -l)"
EXPECT   jvm_class_name_printable: eq 0 \
         "$(events "$OUT" | jq -r '.values["arg0:str(arg1)"] | select(test("[^ -~]"))' | wc -l)"
CASE
fi
