/* llm-text: text in, text out, as the pipeline
 *	tok-encode | llm-gen -e | tok-decode --skip-special
 * that it starts, the model named once for all three. */
#include <sys/wait.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/disk/mdir.h"
#include "../lib/opt/modelopt.h"
#include "../lib/opt/repl.h"
#include "../lib/opt/sampopt.h"
#include "../lib/base/pump.h"
#include "../lib/base/util.h"

enum { O_NOECHO = 0x400, O_PROMPT_FILE };

/* llm-gen's argument vector, built from our options; owned[] holds what
 * was allocated for it */
static char *gen[128], *owned[128];
static int ngen, nowned;

/* The children, for a signal that ends us to end them too (onsig); the
 * signal caught. */
static const int endsigs[] = { SIGINT, SIGTERM, SIGHUP };
static pid_t kids[3];
static volatile sig_atomic_t nkids, caught;
/* -i on a terminal: ^C seen */
static volatile sig_atomic_t intr;

static _Noreturn void
usage(int status)
{
	FILE *f = status ? stderr : stdout;

	fprintf(f, "usage: %s [-iv] [-m model] [-p text | -f file] [--no-echo] "
	    SAMPOPT_USAGE " [--stop-text s ...]\n"
	    "       [-c n] [--kv-type t] [-t threads] [--timing]\n"
	    "       [--bf16-act | --quant q8_0 | --quant q4] [--int8-act]\n"
	    "       [text ...]\n",
	    argv0);
	if (!status) {
		fputs("\n"
		    "Continue a prompt and write it with its continuation, as it is made.\n"
		    "The prompt is the text operands joined by spaces, or -p, or -f, or else\n"
		    "standard input (without its last newline).\n\n"
		    "  -m, --model=PATH      folder or ORG/NAME (default $PIPELM_MODEL, else built-in)\n"
		    "  -p, --prompt=TEXT     the prompt\n"
		    "  -f, --file=FILE       the prompt is the contents of FILE\n"
		    "      --no-echo         write the continuation alone\n"
		    "  -i, --interactive     a prompt a line, the model loaded once; /help lists\n"
		    "                        the settings (/temp, /seed, /n, /top-k, /top-p)\n"
		    "  -n, --max-new=N, --n-predict=N\n"
		    "                        generate at most N tokens, -1 for no limit\n"
		    "      --temp=T, --temperature=T\n"
		    "                        temperature, 0 for greedy\n"
		    "      --top-k=K, --top-p=P, --min-p=P\n"
		    "                        the sampling filters of llm-gen(1)\n"
		    "      --repeat-penalty=P, --repeat-last-n=N\n"
		    "                        the repetition penalty and its window\n"
		    "      --seed=S          the random seed (-v says the one drawn)\n"
		    "      --stop=ID         also stop at token ID (repeatable)\n"
		    "      --stop-text=S     also stop where the text S is complete (repeatable)\n"
		    "      --ignore-eos      do not stop at the end-of-sequence token\n"
		    "  -c, --ctx=N, --ctx-size=N\n"
		    "                        context positions\n"
		    "      --kv-type=f32|bf16|f16|q8_0\n"
		    "                        the KV cache's element type (default f32: exact)\n"
		    "  -t, --threads=N       worker threads\n"
		    "      --bf16-act, --quant=q8_0|q4, --int8-act\n"
		    "                        the faster numeric modes of llm-logits(1)\n"
		    "      --timing          llm-gen's load, prefill and decode times on stderr\n"
		    "  -v, --verbose         llm-gen's account of the model and the record on stderr\n"
		    "  -h, --help            print this help and exit\n"
		    "      --version         print the version and exit\n", f);
	}
	exit(status ? status : fshut(stdout, "<stdout>"));
}

static void
addarg(const char *a)
{
	if (ngen + 2 >= (int)LEN(gen))
		edie(2, "too many options");
	gen[ngen++] = (char *)a;
}

/* The whole of f as a string (a last newline dropped if drop_nl). */
static char *
slurp(FILE *f, const char *name, int drop_nl)
{
	struct buf b = { 0 };
	char chunk[65536];
	size_t n;

	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(f))
		die("%s: read error:", name);
	buf_add(&b, "", 0);
	if (buf_ok(&b) < 0)
		exit(1);
	if (drop_nl && b.len && b.s[b.len - 1] == '\n')
		b.s[--b.len] = 0;
	return b.s;
}

/* A signal that would end us: passed on to the children at once (they
 * would otherwise run on until they next write to a closed pipe), then
 * main waits for them and ends by it (endby). */
static void
onsig(int sig)
{
	int i, saved = errno;

	if (!caught)
		caught = sig;
	for (i = 0; i < nkids; i++)
		kill(kids[i], sig);
	errno = saved;
}

static void
onintr(int sig)
{
	(void)sig;
	intr = 1;
}

/* Catch sig with fn, unless it is ignored (nohup, a background job). */
static void
catch(int sig, void (*fn)(int))
{
	struct sigaction sa;

	if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);	/* no SA_RESTART: a read sees EINTR */
}

/* End by the signal caught, as if it had not been caught. */
static void
endby(void)
{
	sigset_t set;

	if (!caught)
		return;
	fflush(stdout);
	signal(caught, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, caught);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(caught);
}

/* Start prog (beside this program if it is there, else from PATH) with
 * stdin from fd in, stdout to fd out and stderr to fd err; its pid, in
 * kids[] before any signal of endsigs can be taken (they are blocked
 * around the fork). */
static pid_t
start(char **argv, int in, int out, int err, const int *closefds, int nclose)
{
	char dir[4096], path[4200];
	sigset_t set, old;
	pid_t pid;
	size_t j;
	int i;

	sigemptyset(&set);
	for (j = 0; j < LEN(endsigs); j++)
		sigaddset(&set, endsigs[j]);
	sigprocmask(SIG_BLOCK, &set, &old);
	if ((pid = fork()) < 0)
		die("fork:");
	if (pid) {
		kids[nkids] = pid;
		nkids = nkids + 1;
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (caught)	/* taken before this child was there */
			kill(pid, caught);
		return pid;
	}
	/* our handlers off before the signals are let in */
	for (j = 0; j < LEN(endsigs); j++)
		signal(endsigs[j], SIG_DFL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
	for (i = 0; i < nclose; i++)
		close(closefds[i]);
	if (exe_dir(dir, sizeof dir) == 0) {
		snprintf(path, sizeof path, "%s/%s", dir, argv[0]);
		if (access(path, X_OK) == 0)
			execv(path, argv);
	}
	execvp(argv[0], argv);
	warn("%s:", argv[0]);
	_exit(127);
}

/* llm-text -i: the model and tokenizer of folder dir loaded once, the
 * lines of stdin answered (repl.h).  The exit status. */
static int
interact(struct modelopt *mo, struct sampopt *so, const char *dir)
{
	struct model m;
	struct seq sq;
	struct tok tok = { 0 };
	struct repl r = { 0 };
	int tty = isatty(0), ret = 1;

	mo->model = dir;
	if (modelopt_finish(mo) < 0)
		return 2;
	if (modelopt_load(&m, &sq, mo) < 0)
		goto out;
	if (sampopt_finish(so, &m.cfg) < 0) {
		ret = 2;
		goto out;
	}
	if (tok_open(&tok, mo->model, NULL) < 0)
		goto out;
	if (mo->verbose)
		warn("seed %" PRIu64, so->o.seed);
	/* ^C stops a continuation, and at the prompt the session */
	if (tty)
		catch(SIGINT, onintr);
	if (repl_init(&r, &sq, &tok, so, stdout, stderr, tty,
	    tty ? &intr : NULL) < 0)
		goto out;
	ret = repl_run(&r, stdin) < 0 || r.failed;
	ret |= fshut(stdout, "<stdout>");
	if (mo->timing)
		seq_print_stats(&sq, stderr, argv0);
out:
	repl_free(&r);
	tok_free(&tok);
	seq_close(&sq);
	model_close(&m);
	return ret;
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		SAMPOPT_LONGOPTS,
		SAMPOPT_STOPTEXT_LONGOPT,
		MODELOPT_LONGOPTS,
		{ "prompt",      required_argument, NULL, 'p' },
		{ "file",        required_argument, NULL, 'f' },
		{ "no-echo",     no_argument,       NULL, O_NOECHO },
		{ "interactive", no_argument,       NULL, 'i' },
		{ "verbose",     no_argument,       NULL, 'v' },
		{ "help",        no_argument,       NULL, 'h' },
		{ "version",     no_argument,       NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	char *enc[8], *dec[8], *prompt = NULL, *model, *mine = NULL;
	const char *pfile = NULL, *marg = NULL;
	struct sampopt so;
	struct modelopt mo;
	struct mdir md;
	int c, i, echo = 1, p1[2], p2[2], p3[2], e[3][2], efd[3], status;
	int ret = 0, piped = 0, sig[3] = { 0 };
	struct buf errs[3] = { { 0 } };
	int iflag = 0;
	pid_t pids[3];
	FILE *f;

	argv0 = argv[0];
	sampopt_init(&so);
	modelopt_init(&mo);
	addarg("llm-gen");
	while ((c = getopt_long(argc, argv, "m:n:t:c:p:f:ivh", opts, NULL)) != -1) {
		const struct option *o;

		switch (c) {
		case 'm': marg = optarg; continue;
		case 'p': prompt = optarg; continue;
		case 'f': pfile = optarg; continue;
		case O_NOECHO: echo = 0; continue;
		case 'i': iflag = 1; continue;
		case 'v': addarg("-v"); mo.verbose = 1; continue;
		case 'h': usage(0);
		case 'V': version();
		case '?': usage(2);
		}
		/* one of llm-gen's: its value checked here, so that a bad one
		 * stops us before anything starts, then passed on under its
		 * own name */
		if (sampopt_parse(&so, c, optarg) < 0 ||
		    modelopt_parse(&mo, c, optarg) < 0)
			exit(2);
		if (c == 'n' || c == 't') {
			addarg(c == 'n' ? "-n" : "-t");
			addarg(optarg);
			continue;
		}
		for (o = opts; o->name && o->val != c; o++)
			;
		if (!o->name)
			usage(2);
		{
			size_t n = strlen(o->name) + 3;
			char *a = emalloc(n);

			snprintf(a, n, "--%s", o->name);
			addarg(owned[nowned++] = a);
		}
		if (o->has_arg)
			addarg(optarg);
	}
	argc -= optind, argv += optind;
	if ((prompt != NULL) + (pfile != NULL) + (argc > 0) + iflag > 1)
		usage(2);
	if (iflag) {
		/* the prompts are the lines of stdin */
		if (mdir_resolve(&md, marg) < 0)
			return 1;
		ret = interact(&mo, &so, md.gguf ? md.gguf : md.dir);
		sampopt_free(&so);
		mdir_free(&md);
		while (nowned)
			free(owned[--nowned]);
		return ret;
	}
	if (argc) {
		struct buf b = { 0 };

		for (i = 0; i < argc; i++) {
			if (i)
				buf_addc(&b, ' ');
			buf_adds(&b, argv[i]);
		}
		if (buf_ok(&b) < 0)
			return 1;
		prompt = mine = b.s;
	} else if (pfile) {
		if (!(f = fopen(pfile, "rb")))
			die("%s:", pfile);
		prompt = mine = slurp(f, pfile, 0);
		fclose(f);
	} else if (!prompt)
		prompt = mine = slurp(stdin, "<stdin>", 1);
	if (!*prompt)
		die("empty prompt");
	/* the model found once, for the three programs alike */
	if (mdir_resolve(&md, marg) < 0) {
		free(mine);
		return 1;
	}
	model = md.gguf ? md.gguf : md.dir;

	if (echo)
		addarg("-e");
	addarg("-m");
	addarg(model);
	gen[ngen] = NULL;
	i = 0;
	enc[i++] = "tok-encode";
	enc[i++] = "-m", enc[i++] = model;
	enc[i] = NULL;
	i = 0;
	dec[i++] = "tok-decode";
	dec[i++] = "-m", dec[i++] = model;
	dec[i++] = "--skip-special";
	dec[i] = NULL;

	/* us -> tok-encode -> llm-gen -> tok-decode -> our stdout; their
	 * stderr to us, said once the text is out (a note such as "context
	 * is full" on its own line, not inside a word of the text, and a
	 * bad tokenizer.json that two stages read said once) */
	if (pipe(p1) < 0 || pipe(p2) < 0 || pipe(p3) < 0 || pipe(e[0]) < 0 ||
	    pipe(e[1]) < 0 || pipe(e[2]) < 0)
		die("pipe:");
	for (i = 0; i < (int)LEN(endsigs); i++)
		catch(endsigs[i], onsig);
	{
		int all[12] = { p1[0], p1[1], p2[0], p2[1], p3[0], p3[1],
		    e[0][0], e[0][1], e[1][0], e[1][1], e[2][0], e[2][1] };

		fflush(stdout);
		pids[0] = start(enc, p1[0], p2[1], e[0][1], all, 12);
		pids[1] = start(gen, p2[0], p3[1], e[1][1], all, 12);
		pids[2] = start(dec, p3[0], 1, e[2][1], all, 12);
	}
	close(p1[0]);
	close(p2[0]);
	close(p2[1]);
	close(p3[0]);
	close(p3[1]);
	for (i = 0; i < 3; i++) {
		close(e[i][1]);
		efd[i] = e[i][0];
	}
	/* tok-encode may stop reading (it failed): not our error to report */
	signal(SIGPIPE, SIG_IGN);
	/* the prompt written and the stages' messages kept until they end
	 * (a signal passed on to them ends them, and so this) */
	if (pump(p1[1], prompt, strlen(prompt), efd, errs, 3) < 0)
		ret = 1;
	/* The first stage that failed decides; one killed by SIGPIPE means
	 * our reader went away, and we go the same way, quietly. */
	for (i = 0; i < 3; i++) {
		while (waitpid(pids[i], &status, 0) < 0)
			if (errno != EINTR)
				die("waitpid:");
		if (caught)
			continue;	/* ended by the signal we passed on */
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE)
			piped = 1;
		else if (!ret && WIFSIGNALED(status)) {
			sig[i] = WTERMSIG(status);
			ret = -1 - i;	/* said after their messages */
		} else if (!ret && WIFEXITED(status) && WEXITSTATUS(status))
			ret = WEXITSTATUS(status) == 2 ? 2 : 1;
	}
	pump_say(stderr, errs, 3);
	if (ret < 0) {
		i = -1 - ret;
		warn("%s: killed by signal %d", i == 0 ? "tok-encode" :
		    i == 1 ? "llm-gen" : "tok-decode", sig[i]);
		ret = 1;
	}
	for (i = 0; i < 3; i++)
		buf_free(&errs[i]);
	sampopt_free(&so);
	mdir_free(&md);
	free(mine);
	while (nowned)
		free(owned[--nowned]);
	endby();
	if (piped && !ret) {
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	return ret;
}
