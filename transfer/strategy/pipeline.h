#ifndef XFERCMP_STRATEGY_PIPELINE_H
#define XFERCMP_STRATEGY_PIPELINE_H

/*
 * Runs a pipeline of the system's programs, as a shell would but without
 * one, for the reference strategies (reference.c and the real_*.c files)
 * and the cmd: strategies (reference_cmd.c). Knows nothing of strategies.
 *
 * Each stage of a pipeline is a child process (fork/exec, no shell: the
 * pipes are made here), in one process group per run, with SIGTERM as its
 * parent-death signal. Each stage's stderr is collected; when one fails,
 * the error names it, its exit status and the first line it wrote.
 */

#include <stddef.h>
#include <sys/types.h>

#define PIPELINE_MAX_STAGES 3
#define PIPELINE_STDERR_KEEP 1024	/* bytes of each stage's stderr kept for the message */

/* A NULL-terminated argv whose strings it owns; an allocation failure is reported once, at the end. */
struct pipeline_argv {
	char **v;
	size_t n, cap;
	int failed;
};

/* Appends one word, formatted; on failure marks a->failed (pipeline_run reports it). */
void pipeline_arg(struct pipeline_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void pipeline_argv_free(struct pipeline_argv *a);

struct pipeline_stage {
	struct pipeline_argv argv;	/* argv[0] is looked up in PATH */
	const char *label;	/* for messages; NULL: argv[0] */
	/* the rest is pipeline_run's */
	pid_t pid;
	int err_fd;		/* read end of its stderr, -1 once closed */
	char err[PIPELINE_STDERR_KEEP];
	size_t err_len;
	int status;
	int exited;
};

/* Finds program in $PATH. Returns 1 with its path in path, 0 if absent. */
int pipeline_which(const char *program, char *path, size_t len);

/*
 * Runs st[0] | st[1] | ... (n at most PIPELINE_MAX_STAGES) with stdin from
 * /dev/null and the last stage's stdout into out_fd (-1: /dev/null), and
 * waits for all of them. Returns 0 when every stage exited 0; else -1 with
 * the error of the stage that failed first for its own reason (one that
 * died of a broken pipe only followed another's failure): "LABEL failed
 * (exit N): first line of stderr", or "LABEL killed by signal S".
 */
int pipeline_run(struct pipeline_stage *st, unsigned n, int out_fd);

/* Frees the stages' argv. */
void pipeline_stages_free(struct pipeline_stage *st, unsigned n);

/*
 * For the interrupt handler (a thread, not a signal handler): sends SIGTERM
 * to the process group of the pipeline running now, if any, so that
 * nothing it started outlives xfercmp. The programs it starts itself also
 * get SIGTERM when xfercmp dies (PR_SET_PDEATHSIG); this reaches what a
 * cmd: shell started in turn.
 */
void pipeline_stop_running(void);

#endif
