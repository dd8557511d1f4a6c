#!/bin/bash
# USDT in real programs, as Debian ships them: PostgreSQL 15 (query text,
# transactions, checkpoints) and the JVM's hotspot probes (libjvm.so).
# They have more probes than our own test programs, with semaphores, many
# call sites and arguments in memory: probes alike share a program there
# (group.c, groups__build), and each event must still name its own
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

	pg_backend
	if start "$tmp/o1" "$tmp/e1" -j -p "$PGPID" usdt "$PG:postgresql:*"; then
		pg_query
		stop
		expect_eq pg_all_status 0 "$RC"
		expect_match pg_all_shared 'postgresql:[a-z_]+ and [1-9][0-9]* more probe\(s\): one program' "$(cat "$tmp/e1")"
		expect_eq pg_one_query 1 "$(events_of "$tmp/o1" postgresql:query__start)"
		expect_eq pg_query_done 1 "$(events_of "$tmp/o1" postgresql:query__done)"
		# The shutdown checkpoint, once.  Its end passes arguments at
		# symbols' addresses ("-4@NBuffers(%rip)",
		# "-4@40+CheckpointStats(%rip)"), which libbpf 1.5 refuses:
		# ksnoop attaches those probes itself, and reads the values the
		# server has.  NBuffers is shared_buffers in 8 KiB pages (what
		# `postgres -C shared_buffers` prints); the shutdown checkpoint
		# of a fresh database writes at least one buffer.
		expect_eq pg_checkpoint_start 1 "$(events_of "$tmp/o1" postgresql:checkpoint__start)"
		expect_eq pg_checkpoint_done 1 "$(events_of "$tmp/o1" postgresql:checkpoint__done)"
		expect_match pg_own_attach \
			'postgresql:checkpoint__done: 1 call site\(s\) attached by ksnoop \(libbpf does not parse' \
			"$(cat "$tmp/e1")"
		nbuffers=$(as_pg "'$PG' -C shared_buffers -D '$tmp/db'" 2>&1)
		expect_match pg_nbuffers_known '^[1-9][0-9]*$' "$nbuffers"
		expect_eq pg_checkpoint_nbuffers "$nbuffers" \
			"$(events "$tmp/o1" | jq -r 'select(.func == "postgresql:checkpoint__done") | .values.arg1')"
		expect_match pg_checkpoint_written '^[1-9][0-9]*$' \
			"$(events "$tmp/o1" | jq -r 'select(.func == "postgresql:checkpoint__done") | .values.arg0')"
		expect_match pg_none_left_out 'postgresql:\*: [0-9]+ probe\(s\) match, [0-9]+ traced, 0 left out' \
			"$(cat "$tmp/e1")"
		expect_no_match pg_no_probe_left_out 'postgresql:[a-z_]+ left out' "$(cat "$tmp/e1")"
		# Each transaction (start-up's, the query's) starts and commits
		# with the same local id.
		starts=$(events "$tmp/o1" | jq -r 'select(.func == "postgresql:transaction__start") | .values.arg0' | sort -n | joined)
		commits=$(events "$tmp/o1" | jq -r 'select(.func == "postgresql:transaction__commit") | .values.arg0' | sort -n | joined)
		# The first is start-up's, id 1: traced from its start.
		if [ "${starts%% *}" = 1 ] && [ "$starts" = "$commits" ]; then
			pass pg_transactions_pair
		else
			fail pg_transactions_pair "starts: '$starts' commits: '$commits'"
		fi
		expect_eq pg_the_backend "$PGPID" "$(events "$tmp/o1" | jq -r .pid | sort -u | joined)"
		expect_eq pg_nothing_left "" "$(left_progs "$PROGS")"
	else
		pg_query
		fail pg_all_attach "$(tail -5 "$tmp/e1")"
	fi

	# info marks no PostgreSQL probe's argument as unreadable; the
	# buffer sync's end lists NBuffers where the note has it.
	out=$(ks info usdt "$PG" 2>&1)
	expect_no_match pg_info_all_readable 'not readable' "$out"
	expect_match pg_info_rip_symbol '^postgresql +buffer__sync__done .* arg0:s32@NBuffers\(%rip\) ' "$out"

	# The query's text, read from the server's memory.
	pg_backend
	if start "$tmp/o2" "$tmp/e2" -j -p "$PGPID" usdt "$PG:postgresql:query__start(arg0:str)"; then
		pg_query
		stop
		expect_eq pg_query_text "$query" "$(events "$tmp/o2" | jq -r '.values["arg0:str"] | rtrimstr("\n")')"
	else
		pg_query
		fail pg_query_attach "$(tail -5 "$tmp/e2")"
	fi

	# The user stack of the query probe, named from the server's symbols
	# (its exported functions: the backend's main loop, main).
	pg_backend
	if start "$tmp/o4" "$tmp/e4" -j -s -p "$PGPID" usdt "$PG:postgresql:query__start"; then
		pg_query
		stop
		stack=$(events "$tmp/o4" | jq -r '.stack[]' 2>/dev/null)
		expect_match pg_stack_main_loop "^PostgresMain\+0x[0-9a-f]+ \($PG\)$" "$stack"
		expect_match pg_stack_main "^main\+0x[0-9a-f]+ \($PG\)$" "$stack"
		# The innermost frame is the probe's own site, in the server.
		expect_match pg_stack_innermost "\($PG(\+0x[0-9a-f]+)?\)$" "$(printf '%s\n' "$stack" | head -1)"
	else
		pg_query
		fail pg_stack_attach "$(tail -5 "$tmp/e4")"
	fi
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
	mkfifo "$tmp/jgo"
	bash -c 'read -r _ <"$0"; exec "$1" -version' "$tmp/jgo" "$JAVA" >/dev/null 2>&1 &
	JPID=$!
	jvm_attached=0
	start "$tmp/o3" "$tmp/e3" -j -p "$JPID" usdt "$JVM:hotspot:*" && jvm_attached=1
	echo go >"$tmp/jgo"
	wait "$JPID"
fi
if [ -n "$JVM" ] && [ "$jvm_attached" = 1 ]; then
	stop
	expect_eq jvm_status 0 "$RC"
	expect_match jvm_shared 'hotspot:[a-z_]+ and [1-9][0-9]* more probe\(s\): one program' "$(cat "$tmp/e3")"
	expect_eq jvm_init_begin 1 "$(events_of "$tmp/o3" hotspot:vm__init__begin)"
	expect_eq jvm_init_end 1 "$(events_of "$tmp/o3" hotspot:vm__init__end)"
	expect_eq jvm_shutdown 1 "$(events_of "$tmp/o3" hotspot:vm__shutdown)"
	n=$(events_of "$tmp/o3" hotspot:thread__start)
	if [ "$n" -ge 5 ]; then pass jvm_threads; else fail jvm_threads "$n thread__start events"; fi
	# thread__start(name, length, java id, native id): a new thread fires it
	# itself, so the native id is the event's own tid.
	expect_eq jvm_thread_native_id 0 \
		"$(events "$tmp/o3" | jq -r 'select(.func == "hotspot:thread__start") | select(.values.arg3 != .tid) | .tid' | wc -l)"
	# class__loaded(name, length, loader, shared): a length, never a pointer.
	expect_eq jvm_class_name_length 0 \
		"$(events "$tmp/o3" | jq -r 'select(.func == "hotspot:class__loaded") | select(.values.arg1 < 1 or .values.arg1 > 4096) | .tid' | wc -l)"
	expect_eq jvm_the_process "$JPID" "$(events "$tmp/o3" | jq -r .pid | sort -u | joined)"
	expect_eq jvm_nothing_left "" "$(left_progs "$PROGS")"
elif [ -n "$JVM" ]; then
	fail jvm_attach "$(tail -5 "$tmp/e3")"
fi
