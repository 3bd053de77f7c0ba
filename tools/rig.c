/* SPDX-License-Identifier: MIT */
/*
 * tools/rig.c: the `rig` command. Each subcommand is one call of the
 * library; errors go to stderr with rig_why()'s message and a non-zero
 * exit (1: the call failed, 2: a usage error).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "rig_amd_pci.h"
#include "rig_disk.h"
#include "rig_host.h"
#include "rig_remote.h"
#include "trace.h"

#define MAX_FROM 12

static const char usage[] =
"NAME\n"
"    rig - devices, firmware and machine changes of rig\n"
"\n"
"SYNOPSIS\n"
"    rig -h | --help\n"
"    rig --version | version\n"
"    rig [--root DIR] devices\n"
"    rig firmware amd [--from DIR]... [--to DIR]\n"
"    rig [--root DIR] doctor [N] [--from DIR]...\n"
"    rig [--root DIR] detach N\n"
"    rig [--root DIR] attach N\n"
"    rig [--root DIR] reset N\n"
"    rig agent [--listen HOST:PORT] [--key FILE] ... (rig agent --help)\n"
"    rig trace -- PROGRAM ARGS...\n"
"\n"
"DESCRIPTION\n"
"    devices       lists the devices rig opens: HOST (and more host devices,\n"
"                  HOST:n, of a program's own), memory devices, disks\n"
"                  (DISK, and DISK:n, each its own loop), and\n"
"                  each AMD GPU with its bus address, GC version where\n"
"                  readable, and state.\n"
"    firmware amd  installs the pinned AMD images (linux-firmware 20250410,\n"
"                  BLAKE2b-256) into --to DIR (default: rig's firmware\n"
"                  directory, RIG_FIRMWARE_DIR below), copying from each\n"
"                  --from DIR (default /lib/firmware/amdgpu and\n"
"                  /usr/lib/firmware/amdgpu) and verifying every digest.\n"
"    doctor        checks every prerequisite of an open of GPU N (default:\n"
"                  every GPU) with no kernel driver; --from DIR adds a\n"
"                  firmware directory to search.\n"
"    detach N      takes AMD GPU N from amdgpu and enlarges its memory BAR.\n"
"    attach N      gives AMD GPU N back to amdgpu.\n"
"    reset N       stops AMD GPU N (one no driver holds) and resets it.\n"
"    trace         runs PROGRAM with a profile of every device taken, and\n"
"                  writes PROGRAM.trace.json (Chrome trace-event JSON) and,\n"
"                  with gnuplot, PROGRAM.trace.png; exits as PROGRAM does.\n"
"\n"
"OPTIONS\n"
"    -h, --help    prints this text and exits.\n"
"    --version     prints rig's version (the library's) and exits.\n"
"    --root DIR    a machine whose /sys, /proc and /lib/firmware lie under\n"
"                  DIR (a test tree) instead of this one.\n"
"    --from DIR    a directory firmware is copied or searched from.\n"
"    --to DIR      the directory `rig firmware amd` installs into.\n"
"\n"
"ENVIRONMENT\n"
"    RIG_FIRMWARE_DIR  rig's firmware directory, where `rig firmware amd`\n"
"                      installs without --to and an open looks (default\n"
"                      $XDG_DATA_HOME or ~/.local/share, then rig/firmware/amdgpu).\n"
"\n"
"EXIT STATUS\n"
"    0 success; 1 the command failed (the message says why); 2 usage.\n";

static int
usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "rig: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nrig: see rig --help\n");
	return 2;
}

static int
failed(void)
{
	fprintf(stderr, "rig: %s\n", rig_why());
	return 1;
}

/* A GPU number: digits only. */
static int
gpu_number(const char *s, int *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || errno || v < 0 || v > 1 << 20)
		return -1;
	*out = (int)v;
	return 0;
}

static int
cmd_devices(const struct rig_pci_machine *m)
{
	int n = rig_amd_pci_count(m);
	struct rig_device *host;

	printf("the host:\n");
	if (rig_host_device(&host) < 0) {
		printf("  HOST       does not open: %s\n", rig_why());
	} else {
		printf("  %-10s %-12s %lld bytes of last-level cache, budget %llu bytes\n",
		       rig_name(host), rig_arch(host), (long long)rig_cache_bytes(host),
		       (unsigned long long)rig_budget(host));
		rig_device_release(host);
	}
	/* More host devices, each its own timeline and threads: HOST:1
	 * opened as a program would, on one core. */
	{
		struct rig_host_config c = { .name = "HOST:1", .cores = 1 };

		if (rig_host_open(&c, &host) < 0) {
			printf("  HOST:1     does not open: %s\n", rig_why());
		} else {
			printf("  %-10s %-12s and any name: rig_host_open(name, cores, cpus, hang_ms)\n",
			       "HOST:1...", rig_arch(host));
			rig_device_release(host);
		}
	}
	printf("  %-10s %-12s any name: rig_memory_device(name), work run inline\n",
	       "memory", "host-memory");
	/* Disks: each name its own io_uring and loop thread (rig_disk.h);
	 * DISK:1 opened beside DISK as a program's workers would. */
	{
		static struct rig_io_opener second;
		struct rig_device *disk, *disk1;

		if (rig_open_io(&rig_disk_opener, &disk) < 0) {
			printf("  DISK       does not open: %s\n", rig_why());
		} else {
			printf("  %-10s %-12s its own io_uring and loop thread\n",
			       rig_name(disk), rig_arch(disk));
			if (rig_disk_opener_init(&second, "DISK:1", NULL) < 0 ||
			    rig_open_io(&second, &disk1) < 0) {
				printf("  DISK:1     does not open: %s\n", rig_why());
			} else {
				printf("  %-10s %-12s and any name: rig_disk_opener_init(name, options)\n",
				       "DISK:1...", rig_arch(disk1));
				rig_device_release(disk1);
			}
			rig_device_release(disk);
		}
	}
	if (n < 0)
		return failed();
	printf("AMD GPUs over PCI (%d):\n", n);
	if (n > 0)
		printf("  %-10s %-14s %-6s %-8s %s\n", "NAME", "BUS", "DEVICE", "GC",
		       "STATE");
	for (int i = 0; i < n; i++) {
		struct rig_amd_pci_gpu_info g;
		char name[16], gc[16];

		if (rig_amd_pci_describe(m, i, &g) < 0)
			return failed();
		snprintf(name, sizeof(name), i ? "AMD-PCI:%d" : "AMD-PCI", i);
		if (g.gc_known)
			snprintf(gc, sizeof(gc), "%u.%u.%u", g.gc_major, g.gc_minor,
				 g.gc_rev);
		else
			snprintf(gc, sizeof(gc), "-");
		printf("  %-10s %-14s %04x   %-8s %s\n", name, g.bus.text, g.device,
		       gc, g.state);
	}
	return 0;
}

/* --from DIR... into from (NULL-ended); returns the next argument or -1. */
static int
take_from(int argc, char **argv, int at, const char **from, int *n)
{
	while (at < argc && !strcmp(argv[at], "--from")) {
		if (at + 1 >= argc || *n == MAX_FROM)
			return -1;
		from[(*n)++] = argv[at + 1];
		from[*n] = NULL;
		at += 2;
	}
	return at;
}

static int
count_prefix(const char *text, const char *prefix)
{
	int n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

static int
cmd_firmware(int argc, char **argv, int at)
{
	const char *from[MAX_FROM + 1] = { NULL }, *to = NULL;
	char dir[256], *text = NULL;
	size_t len = 0;
	FILE *report;
	int n = 0, ret;

	if (at >= argc || strcmp(argv[at], "amd"))
		return usage_error("firmware: which? (amd)%s", "");
	for (at++; at >= 0 && at < argc; ) {
		if (!strcmp(argv[at], "--to") && at + 1 < argc && !to) {
			to = argv[at + 1];
			at += 2;
		} else {
			int next = take_from(argc, argv, at, from, &n);

			if (next == at)
				break;
			at = next;
		}
	}
	if (at < 0 || at != argc || (to && !*to))
		return usage_error("firmware amd: [--from DIR]... [--to DIR]%s", "");
	if (to)
		snprintf(dir, sizeof(dir), "%s", to);
	else if (rig_amd_firmware_directory(dir, sizeof(dir)) < 0)
		return failed();
	report = open_memstream(&text, &len);
	if (!report)
		return usage_error("no memory%s", "");
	ret = rig_amd_firmware_install(n ? from : NULL, to, report);
	fclose(report);
	fputs(text ? text : "", stdout);
	if (ret < 0) {
		free(text);
		return failed();
	}
	printf("%s: %d installed, %d present, %d missing, %d with another digest\n",
	       dir, count_prefix(text, "installed"), count_prefix(text, "present"),
	       count_prefix(text, "missing"), count_prefix(text, "other digest"));
	free(text);
	if (ret > 0) {
		fprintf(stderr, "rig: %d pinned image%s not installed\n", ret,
			ret == 1 ? " is" : "s are");
		return 1;
	}
	return 0;
}

static int
cmd_doctor(const struct rig_pci_machine *m, int argc, char **argv, int at)
{
	const char *from[MAX_FROM + 1] = { NULL };
	int n = 0, i = -1, ret;

	if (at < argc && strcmp(argv[at], "--from")) {
		if (gpu_number(argv[at], &i) < 0)
			return usage_error("doctor: %s is not a GPU number", argv[at]);
		at++;
	}
	at = take_from(argc, argv, at, from, &n);
	if (at < 0 || at != argc)
		return usage_error("doctor: [N] [--from DIR]...%s", "");
	ret = rig_amd_pci_doctor(m, n ? from : NULL, i, NULL, stdout);
	if (ret < 0)
		return failed();
	printf("%d check%s failed\n", ret, ret == 1 ? "" : "s");
	return ret ? 1 : 0;
}

static int
cmd_change(const struct rig_pci_machine *m, const char *what, int argc,
	   char **argv, int at)
{
	enum rig_pci_progress p;
	int i, ret;

	if (at + 1 != argc || gpu_number(argv[at], &i) < 0)
		return usage_error("%s: one GPU number, such as 0", what);
	if (!strcmp(what, "detach")) {
		ret = rig_amd_pci_detach(m, i, &p);
		if (ret < 0)
			return failed();
		printf("%s\n", rig_why() + strlen("rig_amd_pci_detach: "));
		return p == RIG_PCI_DETACHED ? 0 : 1;
	}
	ret = !strcmp(what, "attach") ? rig_amd_pci_attach(m, i) :
					rig_amd_pci_reset(m, i);
	if (ret < 0)
		return failed();
	printf("GPU %d %s\n", i, !strcmp(what, "attach") ? "attached to amdgpu" :
	       "reset");
	return 0;
}

/* ---- rig agent: this machine's devices for other processes (docs/remote.md) ---- */

static const char agent_usage[] =
"NAME\n"
"    rig agent - serve this machine's devices to rig programs elsewhere\n"
"\n"
"SYNOPSIS\n"
"    rig agent [--listen HOST:PORT] [--key FILE] [--heartbeat-ms N]\n"
"              [--no-host] [--no-memory] [--disk-root DIR]\n"
"              [--amd] [--amd-firmware DIR]... [--amd-sim GC]\n"
"\n"
"DESCRIPTION\n"
"    Listens over UCX (TCP here; RDMA or shared memory where the machine\n"
"    has them) and serves HOST and memory devices to the clients that\n"
"    prove the shared key (rig_remote_opener(3)). Each client's work runs\n"
"    as this process's rig work. Logs one line on stderr per client\n"
"    admitted, refused or gone, per device lost and per file path refused.\n"
"    Serves disks only with --disk-root, and AMD GPUs only with --amd: it\n"
"    opens nothing a client names but HOST, memory devices, files beneath\n"
"    the disk root and, with --amd, the machine's AMD GPUs (\"AMD-PCI[:i]\").\n"
"    Runs until SIGINT or SIGTERM.\n"
"\n"
"OPTIONS\n"
"    --listen HOST:PORT  where to listen (default 127.0.0.1:7411; port 0:\n"
"                        any free port, named in the first log line).\n"
"    --key FILE          the shared key: 16 to 64 bytes in a file only its\n"
"                        owner may read (mode 600). Default: $RIG_AGENT_KEY.\n"
"    --heartbeat-ms N    a client silent N ms is gone: its devices close and\n"
"                        their memory returns (default 3000).\n"
"    --no-host           do not serve HOST.\n"
"    --no-memory         do not serve memory devices.\n"
"    --disk-root DIR     serve disks (rig_remote_disk_opener(3)) whose files\n"
"                        lie beneath DIR: a client's path is relative to it,\n"
"                        and one that leaves it (\"..\", an absolute path, a\n"
"                        symlink out) is refused and opens nothing. Without\n"
"                        it, no disk is served. Needs /proc mounted.\n"
"    --amd               serve this machine's AMD GPUs to machine handles\n"
"                        (rig_remote_machine(3)): they are listed and\n"
"                        opened here, with the openers of rig_amd_pci.h.\n"
"    --amd-firmware DIR  a directory of AMD firmware images the opens search\n"
"                        first (up to 8; then rig's usual directories).\n"
"    --amd-sim GC        with --amd: serve a software GPU of GC version GC\n"
"                        (11.0.0, 11.0.2, 12.0.0, 12.0.1, 9.4.3) instead of\n"
"                        the machine's GPUs, for tests and demos.\n"
"    -h, --help          prints this text and exits.\n"
"\n"
"ENVIRONMENT\n"
"    RIG_AGENT_KEY       the key file, where --key is not given.\n"
"    RIG_REMOTE_SPIN_US  how long the loop polls UCX and the running value,\n"
"                        yielding the core, before it sleeps (default 10).\n"
"\n"
"EXIT STATUS\n"
"    0 stopped by a signal; 1 it could not listen or read the key; 2 usage.\n";

static volatile sig_atomic_t agent_stop;

static void
agent_on_signal(int sig)
{
	agent_stop = 1;
}

static void
agent_line(const char *line)
{
	fprintf(stderr, "rig agent: %s\n", line);
	fflush(stderr);
}

static int
cmd_agent(int argc, char **argv)
{
	struct rig_agent_config c = { .host = 1, .memory = 1, .stop = &agent_stop,
				      .log = agent_line };
	static const char *amd_fw[9];
	int namd_fw = 0;
	struct sigaction sa = { .sa_handler = agent_on_signal };

	for (int i = 2; i < argc; i++) {
		const char *f = argv[i];
		bool has = i + 1 < argc;

		if (!strcmp(f, "-h") || !strcmp(f, "--help")) {
			fputs(agent_usage, stdout);
			return 0;
		} else if (!strcmp(f, "--listen") && has) {
			c.listen = argv[++i];
		} else if (!strcmp(f, "--key") && has) {
			c.key_file = argv[++i];
		} else if (!strcmp(f, "--heartbeat-ms") && has) {
			char *end;
			long v = strtol(argv[++i], &end, 10);

			if (*end || v < 1 || v > 3600000)
				return usage_error("--heartbeat-ms %s is not 1 to 3600000", argv[i]);
			c.heartbeat_ms = (uint32_t)v;
		} else if (!strcmp(f, "--no-host")) {
			c.host = 0;
		} else if (!strcmp(f, "--no-memory")) {
			c.memory = 0;
		} else if (!strcmp(f, "--disk-root") && has) {
			c.disk_root = argv[++i];
		} else if (!strcmp(f, "--amd")) {
			c.amd = 1;
		} else if (!strcmp(f, "--amd-firmware") && has) {
			if (namd_fw == 8)
				return usage_error("--amd-firmware %s: more than 8 directories", argv[i + 1]);
			amd_fw[namd_fw++] = argv[++i];
		} else if (!strcmp(f, "--amd-sim") && has) {
			c.amd_sim = argv[++i];
		} else {
			return usage_error("agent: unknown flag or missing value: %s", f);
		}
	}
	if (c.amd_sim && !c.amd)
		return usage_error("--amd-sim %s needs --amd", c.amd_sim);
	c.amd_firmware = namd_fw ? amd_fw : NULL;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A log reader that went (a closed pipe) does not end the agent: it
	 * still closes its clients' devices and returns their memory. */
	signal(SIGPIPE, SIG_IGN);
	return rig_remote_agent(&c) < 0 ? failed() : 0;
}

int
main(int argc, char **argv)
{
	struct rig_pci_machine *owned = NULL;
	const struct rig_pci_machine *m = NULL;
	int at = 1, ret;

	if (argc < 2)
		return usage_error("a command is missing%s", "");
	if (!strcmp(argv[1], "agent"))
		return cmd_agent(argc, argv);
	/* Before the option scan: the program's own arguments are its. */
	if (!strcmp(argv[1], "trace"))
		return cmd_trace(argc, argv, 2);
	/* -h, --help and --version anywhere an option may stand (not as the
	 * DIR of --root, --from or --to), as every command takes them. */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			printf("rig %s\n", rig_version());
			return 0;
		}
		i += !strcmp(argv[i], "--root") || !strcmp(argv[i], "--from") ||
		     !strcmp(argv[i], "--to");
	}
	if (!strcmp(argv[1], "version")) {
		printf("rig %s\n", rig_version());
		return argc == 2 ? 0 : usage_error("version takes no argument%s", "");
	}
	if (!strcmp(argv[1], "--root")) {
		if (argc < 4)
			return usage_error("--root DIR and a command%s", "");
		if (rig_pci_machine_at(argv[2], &owned) < 0)
			return failed();
		m = owned;
		at = 3;
	}
	if (!strcmp(argv[at], "devices"))
		ret = at + 1 == argc ? cmd_devices(m) :
		      usage_error("devices takes no argument%s", "");
	else if (!strcmp(argv[at], "firmware"))
		ret = owned ? usage_error("firmware takes no --root%s", "") :
		      cmd_firmware(argc, argv, at + 1);
	else if (!strcmp(argv[at], "doctor"))
		ret = cmd_doctor(m, argc, argv, at + 1);
	else if (!strcmp(argv[at], "detach") || !strcmp(argv[at], "attach") ||
		 !strcmp(argv[at], "reset"))
		ret = cmd_change(m, argv[at], argc, argv, at + 1);
	else
		ret = usage_error("unknown command %s", argv[at]);
	rig_pci_machine_release(owned);
	return ret;
}
