/* SPDX-License-Identifier: MIT */
/*
 * rig_remote.h - devices of another machine, served by `rig agent` over
 * UCX (docs/remote.md).
 *
 * rig_remote_opener() names a device of the machine whose agent listens
 * at "host:port"; rig_open() of it connects (once per machine), proves the
 * shared key, and opens the device there through the agent. Its facts are
 * the remote device's, with no bus address, completion by the host and a
 * timeline word of the driver's own. Its Device memory lies on the remote
 * device; its Pinned memory is this process's, registered with UCX, and a
 * copy between the two is carried by UCX RMA. Submits travel in batches:
 * the driver commits on its own every 32 values (its k), and whenever rig
 * commits (before a wait, or when no more work is queued). A broken connection, a dead
 * agent or a silent one (no answer past the heartbeat bound) loses every
 * device of that machine with "AGENT host:port: connection lost".
 */
#ifndef RIG_REMOTE_H
#define RIG_REMOTE_H

#include <signal.h>
#include <stdint.h>

#include "rig_edge.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * rig_remote_opener() - fill *out as the opener of device name ("HOST", or
 * a memory device's name) of the machine whose agent listens at where
 * ("host:port"), named "name@host:port". key_file names the file of the
 * shared key; NULL takes $RIG_AGENT_KEY at the open. Does no I/O; the
 * opener lives as long as the process. Any thread.
 * Returns 0; RIG_EINVAL for where that is not host:port, an empty name or
 * one longer than 200 bytes; RIG_ENOMEM.
 */
int rig_remote_opener(const char *where, const char *name, const char *key_file,
		      struct rig_opener *out);

/*
 * rig_remote_disk_opener() - fill *out as the opener of the disk name
 * ("DISK", or any name) of the machine whose agent listens at where and
 * serves disks (`rig agent --disk-root DIR`), named "name@host:port", for
 * rig_open_io(). Its files are the agent's, named by paths relative to
 * the agent's root: rig_disk_create_file() and rig_disk_of_file() refuse
 * a path that leaves it ("..", an absolute path, a symlink out) with the
 * agent's cause, and change nothing. A copy between one of its files and
 * memory this process addresses (rig_buffer_copy) carries the bytes by
 * UCX RMA; rig_disk_barrier() runs fsync there. key_file as for
 * rig_remote_opener(). Does no I/O; the opener lives as long as the
 * process. Any thread.
 * Returns 0; RIG_EINVAL for where that is not host:port, an empty name or
 * one longer than 200 bytes; RIG_ENOMEM.
 */
int rig_remote_disk_opener(const char *where, const char *name, const char *key_file,
			   struct rig_io_opener *out);

struct rig_pci_machine;

/*
 * rig_remote_machine() - *out becomes the machine whose agent listens at
 * where, as the AMD path's machine handle (rig_amd_pci.h): with it,
 * rig_amd_pci_buses() and rig_amd_pci_count() list the AMD GPUs the agent
 * serves (`rig agent --amd`), in its bus order, and rig_amd_pci_gpu(m,
 * firmware, i) gives the opener of its GPU i, named "AMD-PCI[:i]@where":
 * the agent opens the GPU with its own opener and firmware directories
 * (firmware here is ignored), and this process drives it as any remote
 * device. Every other call that reaches the machine's PCI functions
 * itself (rig_amd_pci_describe(), detach, attach, reset) is refused: the
 * functions are the agent's. key_file as for rig_remote_opener(). Does
 * no I/O. Release with rig_pci_machine_release() once its openers are
 * freed. Any thread.
 * Returns 0; RIG_EINVAL for NULL where or out, where not host:port, a key
 * file path too long; RIG_ENOMEM.
 */
int rig_remote_machine(const char *where, const char *key_file,
		       struct rig_pci_machine **out);

/* What rig_remote_agent() serves, and how (`rig agent --help`). */
struct rig_agent_config {
	const char *listen;		/* "host:port"; NULL: "127.0.0.1:7411"; port 0: any */
	const char *key_file;		/* the shared key's file; NULL: $RIG_AGENT_KEY */
	int host;			/* serve "HOST" */
	int memory;			/* serve memory devices (any other name) */
	uint32_t heartbeat_ms;		/* a client silent this long is gone; 0: 3000 */
	const volatile sig_atomic_t *stop; /* the loop ends once *stop is set; NULL: never */
	void (*log)(const char *line);	/* one line per client and per loss; NULL: stderr */
	const char *disk_root;		/* serve disks whose files lie beneath this
					 * directory only; NULL: no disks */
	int amd;			/* serve this machine's AMD GPUs ("AMD-PCI[:i]") */
	const char *const *amd_firmware; /* NULL-ended firmware directories, or NULL */
	const char *amd_sim;		/* serve a software GPU of this GC version
					 * ("11.0.0"...) instead of the machine's GPUs:
					 * for tests and demos; NULL: none */
};

/*
 * rig_remote_agent() - serve this machine's devices as c says until *stop:
 * listen, admit clients that prove the key, open devices on demand, run
 * each client's work as this process's rig work. Logs "listening on
 * host:port" once it listens (the port chosen, for port 0). Returns 0 once
 * stopped; RIG_EINVAL for a bad address or key file (rig_why() says why),
 * or where UCX cannot listen.
 */
int rig_remote_agent(const struct rig_agent_config *c);

#ifdef __cplusplus
}
#endif
#endif /* RIG_REMOTE_H */
