/* SPDX-License-Identifier: MIT */
/*
 * test_refusals: every public function, called with each kind of bad
 * argument it can get, refuses (SPEC §13, rig.h "NULL handles"): a negative
 * status (or, for a function that returns a value, its empty value), a
 * rig_why() that names the function and the cause, no change of state (the
 * timeline words, the devices' memory, budgets and losses, the driver's
 * counters, a buffer's bytes and holds, the files of a folder), no crash; the ASan build's LeakSanitizer
 * says nothing leaked. One table, one row a bad call.
 *
 * Beside it, one test per defect issue 14 found, named for the promise
 * each broke.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "rig_amd_pci.h"
#include "rig_disk.h"

#define ND 6				/* devices watched */
#define VOID 1				/* a row's call returns nothing */
/* A value function's answer: RIG_EINVAL where it is the empty value. */
#define EMPTY(cond) ((cond) ? RIG_EINVAL : 99)

static struct polled_dev pd, pd2;	/* P, and P2: another device */
static struct polled_dev gone;		/* PL: lost, its handle held */
static struct rig_claim *hold;		/* holds b8 */
static struct rig_device *m, *m2, *lost, *disk, *lost_disk;
static struct rig_device *dev[ND];
static struct rig_buffer *b, *b8, *ro, *dead, *on_m2, *lost_b, *excl, *pa, *pb;
static struct rig_buffer *p_ro, *p_dead, *on_p2, *file, *file2, *words3;
static struct rig_image *img, *img2, *img_gone;
static struct rig_function *fn, *fn2;
static struct rig_submission *s_copy, *s_pcopy, *s_launch, *s_gone;
static struct rig_pci_machine *fm;
static struct rig_io_opener dop, dop_lost;
static char dir[512], path[600], missing[600];

/* Outs a refused call must leave alone (rows read none of them). */
static struct rig_device *od;
static struct rig_buffer *ob;
static struct rig_image *oi;
static struct rig_function *of;
static struct rig_submission *os;
static struct rig_run *orun;
static struct rig_claim *oc;
static struct rig_point op;
static struct rig_polled *opl;
static struct rig_opener oo, *oop;
static struct rig_pci_machine *om;
static struct rig_pci_address *oa;
static uint64_t ou;
static uint32_t oq, onf;
static const uint32_t *ofl;
static size_t on;
static char host[600];
static enum rig_pci_progress oprog;
static struct rig_amd_pci_gpu_info oinfo;

static const uint32_t grid[3] = { 1, 1, 1 }, group[3] = { 1, 1, 1 };
static const uint32_t empty_group[3] = { 0, 1, 1 }, big_group[3] = { 1024, 1, 1 };

static int
nothing(void *arg)
{
	return 0;
}

static int
fill_nothing(void *ctx, void *arg, uint64_t value)
{
	return 0;
}

/* A fresh run of s (the submit frees it, whatever it returns). */
static struct rig_run *
take(struct rig_submission *s)
{
	struct rig_run *r = NULL;

	assert_int_equal(rig_run_take(s, &r), 0);
	return r;
}

/* make of one part on d with fixed; the submission if it is wrongly made. */
static int
make1(struct rig_device *d, struct rig_part_spec part)
{
	return rig_submission_make(d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &os);
}

static int
make_fixed(struct rig_fixed f)
{
	struct rig_part_spec part = rig_part_copy(RIG_SLOT(0), RIG_SLOT(1));

	return rig_submission_make(pd.d, &part, 1, &f, 1, (struct rig_keep){ 0 }, &os);
}

static const struct rig_ref ref_ok[1] = { RIG_READ(0, 0) };

#define REF1(r) ((const struct rig_ref[]){ r })
#define REF2(r1, r2) ((const struct rig_ref[]){ r1, r2 })
#define BUFS(...) ((struct rig_buffer *[]){ __VA_ARGS__ })
#define WAITS(...) ((struct rig_point[]){ __VA_ARGS__ })
#define DIRS(...) ((const char *const[]){ __VA_ARGS__ })
#define LAUNCH(fn_, params, refs, n) rig_part_launch((fn_), (params), (refs), (n))

/*
 * The table: the function rig_why() must name, the status (VOID for a call
 * that returns nothing), a part of the cause (NULL: the call records
 * nothing, as a release of NULL), and the call.
 */
#define ROWS(X)								\
	/* ---- Devices ---- */						\
	X(rig_open, RIG_EINVAL, "the opener is NULL", (rig_open(NULL, &od))) \
	X(rig_open, RIG_EINVAL, "out is NULL", (rig_open(rig_polled_opener(pd.p), NULL))) \
	X(rig_open, RIG_EINVAL, "no name", (rig_open(&(struct rig_opener){ 0 }, &od))) \
	X(rig_memory_device, RIG_EINVAL, "the name is NULL", (rig_memory_device(NULL, &od))) \
	X(rig_memory_device, RIG_EINVAL, "the name is empty", (rig_memory_device("", &od))) \
	X(rig_memory_device, RIG_EINVAL, "out is NULL", (rig_memory_device("RM", NULL))) \
	X(rig_host_device, RIG_EINVAL, "out is NULL", (rig_host_device(NULL))) \
	X(rig_close, RIG_EINVAL, "the device is NULL", (rig_close(NULL))) \
	X(rig_device_release, VOID, NULL, (rig_device_release(NULL), VOID)) \
	X(rig_name, RIG_EINVAL, "the device is NULL", (EMPTY(!rig_name(NULL)))) \
	X(rig_arch, RIG_EINVAL, "the device is NULL", (EMPTY(!rig_arch(NULL)))) \
	X(rig_cache_bytes, RIG_EINVAL, "the device is NULL", (EMPTY(rig_cache_bytes(NULL) == -1))) \
	X(rig_budget, RIG_EINVAL, "the device is NULL", (EMPTY(rig_budget(NULL) == 0))) \
	X(rig_allocated, RIG_EINVAL, "the device is NULL", (EMPTY(rig_allocated(NULL) == 0))) \
	X(rig_lost, RIG_EINVAL, "the device is NULL", (EMPTY(!rig_lost(NULL)))) \
	X(rig_loss, RIG_EINVAL, "the device is NULL", (EMPTY(!rig_loss(NULL)))) \
	X(rig_set_budget, RIG_EINVAL, "the device is NULL", (rig_set_budget(NULL, 1))) \
	X(rig_set_budget, RIG_EINVAL, "-5 bytes is negative", (rig_set_budget(m, (uint64_t)-5))) \
	X(rig_set_budget, RIG_ELOST, "RL is lost: closed", (rig_set_budget(lost, 4096))) \
	/* ---- Points ---- */						\
	X(rig_reached, RIG_EINVAL, "the point names no device", (EMPTY(!rig_reached((struct rig_point){ 0 })))) \
	X(rig_signaled, RIG_EINVAL, "the point names no device", (EMPTY(!rig_signaled((struct rig_point){ 0 })))) \
	X(rig_wait, RIG_EINVAL, "the point names no device", (rig_wait((struct rig_point){ NULL, 1 }, 0))) \
	/* ---- Buffers ---- */						\
	X(rig_buffer_create, RIG_EINVAL, "the device is NULL", (rig_buffer_create(NULL, 8, RIG_MEMORY_DEVICE, &ob))) \
	X(rig_buffer_create, RIG_EINVAL, "out is NULL", (rig_buffer_create(m, 8, RIG_MEMORY_DEVICE, NULL))) \
	X(rig_buffer_create, RIG_EINVAL, "-5 bytes is negative", (rig_buffer_create(m, (size_t)-5, RIG_MEMORY_DEVICE, &ob))) \
	X(rig_buffer_create, RIG_ENOMEM, "budget", (rig_buffer_create(pd.d, (size_t)1 << 62, RIG_MEMORY_DEVICE, &ob))) \
	X(rig_buffer_create, RIG_EINVAL, "99 is no memory kind", (rig_buffer_create(m, 8, (enum rig_memory)99, &ob))) \
	X(rig_buffer_create, RIG_ELOST, "RL is lost: closed", (rig_buffer_create(lost, 8, RIG_MEMORY_DEVICE, &ob))) \
	X(rig_buffer_view, RIG_EINVAL, "the buffer is NULL", (rig_buffer_view(NULL, 0, 0, RIG_READ_ONLY, &ob))) \
	X(rig_buffer_view, RIG_EINVAL, "the buffer is dead", (rig_buffer_view(dead, 0, 8, RIG_READ_ONLY, &ob))) \
	X(rig_buffer_view, RIG_EINVAL, "out is NULL", (rig_buffer_view(b, 0, 8, RIG_READ_ONLY, NULL))) \
	X(rig_buffer_view, RIG_EINVAL, "is negative", (rig_buffer_view(b, 0, (size_t)-1, RIG_READ_ONLY, &ob))) \
	X(rig_buffer_view, RIG_EINVAL, "is negative", (rig_buffer_view(b, (size_t)-8, 8, RIG_READ_ONLY, &ob))) \
	X(rig_buffer_view, RIG_EINVAL, "outside the buffer", (rig_buffer_view(b, 65, 0, RIG_READ_ONLY, &ob))) \
	X(rig_buffer_view, RIG_EINVAL, "outside the buffer", (rig_buffer_view(b, 8, 60, RIG_READ_ONLY, &ob))) \
	X(rig_buffer_view, RIG_EINVAL, "outside the buffer", (rig_buffer_view(b, (size_t)1 << 62, 8, RIG_READ_ONLY, &ob))) \
	X(rig_buffer_view, RIG_EINVAL, "7 is no access", (rig_buffer_view(b, 0, 8, (enum rig_access)7, &ob))) \
	X(rig_buffer_view, RIG_EINVAL, "read-write view of a read-only", (rig_buffer_view(ro, 0, 8, RIG_READ_WRITE, &ob))) \
	X(rig_buffer_length, RIG_EINVAL, "the buffer is NULL", (EMPTY(rig_buffer_length(NULL) == 0))) \
	X(rig_buffer_access, RIG_EINVAL, "the buffer is NULL", (EMPTY(rig_buffer_access(NULL) == 0))) \
	X(rig_buffer_device, RIG_EINVAL, "the buffer is NULL", (EMPTY(!rig_buffer_device(NULL)))) \
	X(rig_buffer_address, RIG_EINVAL, "the buffer is NULL", (EMPTY(rig_buffer_address(NULL) == 0))) \
	X(rig_buffer_overlaps, RIG_EINVAL, "the buffer is NULL", (EMPTY(!rig_buffer_overlaps(NULL, b)))) \
	X(rig_buffer_overlaps, RIG_EINVAL, "the buffer is NULL", (EMPTY(!rig_buffer_overlaps(b, NULL)))) \
	X(rig_buffer_read, RIG_EINVAL, "the buffer is NULL", (rig_buffer_read(NULL, 0, host, 8))) \
	X(rig_buffer_read, RIG_EINVAL, "the buffer is dead", (rig_buffer_read(dead, 0, host, 8))) \
	X(rig_buffer_read, RIG_EINVAL, "the host memory is NULL", (rig_buffer_read(b, 0, NULL, 8))) \
	X(rig_buffer_read, RIG_EINVAL, "is negative", (rig_buffer_read(b, 0, host, (size_t)-1))) \
	X(rig_buffer_read, RIG_EINVAL, "is negative", (rig_buffer_read(b, (size_t)-1, host, 1))) \
	X(rig_buffer_read, RIG_EINVAL, "outside the buffer", (rig_buffer_read(b, 60, host, 8))) \
	X(rig_buffer_read, RIG_EINVAL, "outside the buffer", (rig_buffer_read(b, (size_t)1 << 62, host, 8))) \
	X(rig_buffer_read, RIG_EINVAL, "the host does not address", (rig_buffer_read(file, 0, host, 8))) \
	X(rig_buffer_write, RIG_EINVAL, "the buffer is NULL", (rig_buffer_write(NULL, 0, host, 8))) \
	X(rig_buffer_write, RIG_EINVAL, "the buffer is dead", (rig_buffer_write(dead, 0, host, 8))) \
	X(rig_buffer_write, RIG_EINVAL, "the host memory is NULL", (rig_buffer_write(b, 0, NULL, 8))) \
	X(rig_buffer_write, RIG_EINVAL, "is negative", (rig_buffer_write(b, 0, host, (size_t)-1))) \
	X(rig_buffer_write, RIG_EINVAL, "outside the buffer", (rig_buffer_write(b, 64, host, 1))) \
	X(rig_buffer_write, RIG_EINVAL, "the buffer is read-only", (rig_buffer_write(ro, 0, host, 8))) \
	X(rig_buffer_write, RIG_EINVAL, "the host does not address", (rig_buffer_write(file, 0, host, 8))) \
	X(rig_buffer_copy, RIG_EINVAL, "the buffer is NULL", (rig_buffer_copy(NULL, b, &op))) \
	X(rig_buffer_copy, RIG_EINVAL, "the buffer is NULL", (rig_buffer_copy(b, NULL, &op))) \
	X(rig_buffer_copy, RIG_EINVAL, "the buffer is dead", (rig_buffer_copy(dead, b, &op))) \
	X(rig_buffer_copy, RIG_EINVAL, "dst is read-only", (rig_buffer_copy(b, ro, &op))) \
	X(rig_buffer_copy, RIG_EINVAL, "src has 64 bytes and dst 8", (rig_buffer_copy(b, b8, &op))) \
	X(rig_buffer_copy, RIG_EINVAL, "share memory", (rig_buffer_copy(b, b, &op))) \
	X(rig_buffer_copy, RIG_EINVAL, "src lies on RM and dst on RM2", (rig_buffer_copy(b, on_m2, &op))) \
	X(rig_buffer_copy, RIG_EINVAL, "both files", (rig_buffer_copy(file, file2, &op))) \
	X(rig_buffer_borrow, RIG_EINVAL, "the buffer is NULL", (rig_buffer_borrow(NULL, m2, &ob))) \
	X(rig_buffer_borrow, RIG_EINVAL, "the buffer is dead", (rig_buffer_borrow(dead, m2, &ob))) \
	X(rig_buffer_borrow, RIG_EINVAL, "the device is NULL", (rig_buffer_borrow(b, NULL, &ob))) \
	X(rig_buffer_borrow, RIG_EINVAL, "out is NULL", (rig_buffer_borrow(b, m2, NULL))) \
	X(rig_buffer_borrow, RIG_ELOST, "RL is lost: closed", (rig_buffer_borrow(b, lost, &ob))) \
	X(rig_buffer_release, VOID, NULL, (rig_buffer_release(NULL), VOID)) \
	/* ---- Io devices: disks ---- */				\
	X(rig_open_io, RIG_EINVAL, "the opener is NULL", (rig_open_io(NULL, &od))) \
	X(rig_open_io, RIG_EINVAL, "out is NULL", (rig_open_io(&dop, NULL))) \
	X(rig_open_io, RIG_EINVAL, "no name", (rig_open_io(&(struct rig_io_opener){ 0 }, &od))) \
	X(rig_disk_create_file, RIG_EINVAL, "the device is NULL", (rig_disk_create_file(NULL, path, 8, &ob))) \
	X(rig_disk_create_file, RIG_EINVAL, "out is NULL", (rig_disk_create_file(disk, path, 8, NULL))) \
	X(rig_disk_create_file, RIG_EINVAL, "the path is NULL", (rig_disk_create_file(disk, NULL, 8, &ob))) \
	X(rig_disk_create_file, RIG_EINVAL, "the path is empty", (rig_disk_create_file(disk, "", 8, &ob))) \
	X(rig_disk_create_file, RIG_EINVAL, "-5 bytes is negative", (rig_disk_create_file(disk, path, (size_t)-5, &ob))) \
	X(rig_disk_create_file, RIG_EINVAL, "File too large", (rig_disk_create_file(disk, path, (size_t)1 << 62, &ob))) \
	X(rig_disk_create_file, RIG_EINVAL, "RM is not a disk", (rig_disk_create_file(m, path, 8, &ob))) \
	X(rig_disk_create_file, RIG_ELOST, "RDL is lost: closed", (rig_disk_create_file(lost_disk, path, 8, &ob))) \
	X(rig_disk_of_file, RIG_EINVAL, "the device is NULL", (rig_disk_of_file(NULL, path, RIG_READ_ONLY, &ob))) \
	X(rig_disk_of_file, RIG_EINVAL, "the path is NULL", (rig_disk_of_file(disk, NULL, RIG_READ_ONLY, &ob))) \
	X(rig_disk_of_file, RIG_EINVAL, "out is NULL", (rig_disk_of_file(disk, missing, RIG_READ_ONLY, NULL))) \
	X(rig_disk_of_file, RIG_EINVAL, "No such file", (rig_disk_of_file(disk, missing, RIG_READ_ONLY, &ob))) \
	X(rig_disk_of_file, RIG_EINVAL, "9 is no access", (rig_disk_of_file(disk, missing, (enum rig_access)9, &ob))) \
	X(rig_disk_of_file, RIG_EINVAL, "RM is not a disk", (rig_disk_of_file(m, missing, RIG_READ_ONLY, &ob))) \
	X(rig_disk_of_file, RIG_ELOST, "RDL is lost: closed", (rig_disk_of_file(lost_disk, missing, RIG_READ_ONLY, &ob))) \
	X(rig_disk_barrier, RIG_EINVAL, "the buffer is NULL", (rig_disk_barrier(NULL, &op))) \
	X(rig_disk_barrier, RIG_EINVAL, "the buffer is dead", (rig_disk_barrier(dead, &op))) \
	X(rig_disk_barrier, RIG_EINVAL, "which is not a disk", (rig_disk_barrier(b, &op))) \
	X(rig_disk_opener_init, -EINVAL, "the opener is NULL", (rig_disk_opener_init(NULL, "D", NULL))) \
	X(rig_disk_opener_init, -EINVAL, "the name is empty", (rig_disk_opener_init(&(struct rig_io_opener){ 0 }, "", NULL))) \
	X(rig_disk_opener_init, -EINVAL, "options of 3 bytes", (rig_disk_opener_init(&(struct rig_io_opener){ 0 }, "D", &(struct rig_disk_options){ .size = 3 }))) \
	/* ---- Claims ---- */						\
	X(rig_claim_hold, RIG_EINVAL, "the buffers array is NULL", (rig_claim_hold(NULL, 1, &oc))) \
	X(rig_claim_hold, RIG_EINVAL, "out is NULL", (rig_claim_hold(BUFS(excl), 1, NULL))) \
	X(rig_claim_hold, RIG_EINVAL, "-1 buffers is negative", (rig_claim_hold(BUFS(excl), (size_t)-1, &oc))) \
	X(rig_claim_hold, RIG_EINVAL, "the buffer is NULL", (rig_claim_hold(BUFS(excl, NULL), 2, &oc))) \
	X(rig_claim_hold, RIG_EINVAL, "the buffer is dead", (rig_claim_hold(BUFS(excl, dead), 2, &oc))) \
	X(rig_claim_with, RIG_EINVAL, "the function is NULL", (rig_claim_with(BUFS(excl), 1, NULL, NULL))) \
	X(rig_claim_with, RIG_EINVAL, "the buffers array is NULL", (rig_claim_with(NULL, 1, nothing, NULL))) \
	X(rig_claim_with, RIG_EINVAL, "the buffer is dead", (rig_claim_with(BUFS(dead), 1, nothing, NULL))) \
	X(rig_claim_release, VOID, NULL, (rig_claim_release(NULL), VOID)) \
	X(rig_buffer_exclusive, RIG_EINVAL, "the buffer is NULL", (EMPTY(!rig_buffer_exclusive(NULL)))) \
	X(rig_buffer_consume, RIG_EINVAL, "the buffer is NULL", (rig_buffer_consume(NULL, &ob))) \
	X(rig_buffer_consume, RIG_EINVAL, "the buffer is dead", (rig_buffer_consume(dead, &ob))) \
	X(rig_buffer_consume, RIG_EINVAL, "out is NULL", (rig_buffer_consume(excl, NULL))) \
	X(rig_buffer_consume, RIG_EINVAL, "the buffer is held", (rig_buffer_consume(b8, &ob))) \
	/* ---- Images ---- */						\
	X(rig_image_load, RIG_EINVAL, "the device is NULL", (rig_image_load(NULL, "code", 4, &oi))) \
	X(rig_image_load, RIG_EINVAL, "the code is NULL", (rig_image_load(pd.d, NULL, 4, &oi))) \
	X(rig_image_load, RIG_EINVAL, "out is NULL", (rig_image_load(pd.d, "code", 4, NULL))) \
	X(rig_image_load, RIG_EINVAL, "-1 bytes is negative", (rig_image_load(pd.d, "code", (size_t)-1, &oi))) \
	X(rig_image_load, RIG_EINVAL, "RM loads no code", (rig_image_load(m, "code", 4, &oi))) \
	X(rig_image_load, RIG_ELOST, "PL is lost: closed", (rig_image_load(gone.d, "code", 4, &oi))) \
	X(rig_image_function, RIG_EINVAL, "the image is NULL", (rig_image_function(NULL, "k", &of))) \
	X(rig_image_function, RIG_EINVAL, "the name is NULL", (rig_image_function(img, NULL, &of))) \
	X(rig_image_function, RIG_EINVAL, "out is NULL", (rig_image_function(img, "k", NULL))) \
	X(rig_image_function, RIG_EINVAL, "no function absent", (rig_image_function(img, "absent", &of))) \
	X(rig_image_function, RIG_ELOST, "PL is lost: closed", (rig_image_function(img_gone, "k", &of))) \
	X(rig_image_symbol, RIG_EINVAL, "the image is NULL", (rig_image_symbol(NULL, "t", &(void *){ 0 }, &(size_t){ 0 }))) \
	X(rig_image_symbol, RIG_EINVAL, "the name is NULL", (rig_image_symbol(img, NULL, &(void *){ 0 }, &(size_t){ 0 }))) \
	X(rig_image_symbol, RIG_EINVAL, "the host is NULL", (rig_image_symbol(img, "t", NULL, &(size_t){ 0 }))) \
	X(rig_image_symbol, RIG_EINVAL, "the bytes is NULL", (rig_image_symbol(img, "t", &(void *){ 0 }, NULL))) \
	X(rig_image_symbol, RIG_EINVAL, "P's globals are not addressed by the host", (rig_image_symbol(img, "t", &(void *){ 0 }, &(size_t){ 0 }))) \
	X(rig_image_symbol, RIG_ELOST, "PL is lost: closed", (rig_image_symbol(img_gone, "t", &(void *){ 0 }, &(size_t){ 0 }))) \
	X(rig_image_release, VOID, NULL, (rig_image_release(NULL), VOID)) \
	/* ---- Submissions: make ---- */				\
	X(rig_submission_make, RIG_EINVAL, "the device is NULL", (make1(NULL, rig_part_copy(RIG_SLOT(0), RIG_SLOT(1))))) \
	X(rig_submission_make, RIG_EINVAL, "out is NULL", (rig_submission_make(pd.d, NULL, 0, NULL, 0, (struct rig_keep){ 0 }, NULL))) \
	X(rig_submission_make, RIG_EINVAL, "the parts array is NULL", (rig_submission_make(pd.d, NULL, 1, NULL, 0, (struct rig_keep){ 0 }, &os))) \
	X(rig_submission_make, RIG_EINVAL, "the fixed array is NULL", (rig_submission_make(pd.d, NULL, 0, NULL, 1, (struct rig_keep){ 0 }, &os))) \
	X(rig_submission_make, RIG_EINVAL, "-1 parts", (rig_submission_make(pd.d, (struct rig_part_spec[]){ rig_part_copy(RIG_SLOT(0), RIG_SLOT(1)) }, (size_t)-1, NULL, 0, (struct rig_keep){ 0 }, &os))) \
	X(rig_submission_make, RIG_EINVAL, "-1 fixed is negative", (rig_submission_make(pd.d, NULL, 0, &(struct rig_fixed){ pa, RIG_READ_ONLY }, (size_t)-1, (struct rig_keep){ 0 }, &os))) \
	X(rig_submission_make, RIG_EINVAL, "an Io device", (make1(disk, rig_part_copy(RIG_SLOT(0), RIG_SLOT(1))))) \
	X(rig_submission_make, RIG_ELOST, "RL is lost: closed", (make1(lost, rig_part_copy(RIG_SLOT(0), RIG_SLOT(1))))) \
	X(rig_submission_make, RIG_EINVAL, "part 0 has no kind (0)", (make1(pd.d, (struct rig_part_spec){ 0 }))) \
	X(rig_submission_make, RIG_EINVAL, "src names slot -1, which is negative", (make1(pd.d, rig_part_copy(RIG_SLOT(-1), RIG_SLOT(1))))) \
	X(rig_submission_make, RIG_EINVAL, "dst names slot 1099511627776, above the most", (make1(pd.d, rig_part_copy(RIG_SLOT(0), RIG_SLOT((int64_t)1 << 40))))) \
	X(rig_submission_make, RIG_EINVAL, "src and dst are one slot", (make1(pd.d, rig_part_copy(RIG_SLOT(2), RIG_SLOT(2))))) \
	X(rig_submission_make, RIG_EINVAL, "src is dead", (make1(pd.d, rig_part_copy(RIG_BUFFER(p_dead), RIG_SLOT(0))))) \
	X(rig_submission_make, RIG_EINVAL, "dst admits only reads", (make1(pd.d, rig_part_copy(RIG_SLOT(0), RIG_BUFFER(p_ro))))) \
	X(rig_submission_make, RIG_EINVAL, "dst lies on P2, not P", (make1(pd.d, rig_part_copy(RIG_SLOT(0), RIG_BUFFER(on_p2))))) \
	X(rig_submission_make, RIG_EINVAL, "src and dst share a byte", (make1(pd.d, rig_part_copy(RIG_BUFFER(pa), RIG_BUFFER(pa))))) \
	X(rig_submission_make, RIG_EINVAL, "it names no function", (make1(pd.d, LAUNCH(NULL, 16, NULL, 0)))) \
	X(rig_submission_make, RIG_EINVAL, "-1 params bytes is negative", (make1(pd.d, LAUNCH(fn, -1, NULL, 0)))) \
	X(rig_submission_make, RIG_EINVAL, "above 2^31 - 32", (make1(pd.d, LAUNCH(fn, (int64_t)1 << 40, NULL, 0)))) \
	X(rig_submission_make, RIG_EINVAL, "fewer than the 16 its function reads", (make1(pd.d, LAUNCH(fn, 8, NULL, 0)))) \
	X(rig_submission_make, RIG_EINVAL, "loaded on P2, not P", (make1(pd.d, LAUNCH(fn2, 16, NULL, 0)))) \
	X(rig_submission_make, RIG_EINVAL, "-1 refs is negative", (make1(pd.d, LAUNCH(fn, 16, ref_ok, (size_t)-1)))) \
	X(rig_submission_make, RIG_EINVAL, "1 refs but no array", (make1(pd.d, LAUNCH(fn, 16, NULL, 1)))) \
	X(rig_submission_make, RIG_EINVAL, "ref 0 has no kind", (make1(pd.d, LAUNCH(fn, 16, REF1(((struct rig_ref){ 0 })), 1)))) \
	X(rig_submission_make, RIG_EINVAL, "ref 0 names slot -1", (make1(pd.d, LAUNCH(fn, 16, REF1(RIG_READ(-1, 0)), 1)))) \
	X(rig_submission_make, RIG_EINVAL, "ref 0 names slot 1099511627776, above the most", (make1(pd.d, LAUNCH(fn, 16, REF1(RIG_READ((int64_t)1 << 40, 0)), 1)))) \
	X(rig_submission_make, RIG_EINVAL, "ref 0 is at -8, which is negative", (make1(pd.d, LAUNCH(fn, 16, REF1(RIG_READ(0, -8)), 1)))) \
	X(rig_submission_make, RIG_EINVAL, "ref 0 is at 4, no multiple of 8", (make1(pd.d, LAUNCH(fn, 16, REF1(RIG_READ(0, 4)), 1)))) \
	X(rig_submission_make, RIG_EINVAL, "lie past the part's 16 params bytes", (make1(pd.d, LAUNCH(fn, 16, REF1(RIG_READ(0, 16)), 1)))) \
	X(rig_submission_make, RIG_EINVAL, "lie past the part's 16 params bytes", (make1(pd.d, LAUNCH(fn, 16, REF1(RIG_READ(0, INT64_MAX - 7)), 1)))) \
	X(rig_submission_make, RIG_EINVAL, "refs 0 and 1 share at 8", (make1(pd.d, LAUNCH(fn, 16, REF2(RIG_READ(0, 8), RIG_WRITE(1, 8)), 2)))) \
	X(rig_submission_make, RIG_EINVAL, "ref 0 names no function", (make1(pd.d, LAUNCH(fn, 16, REF1(RIG_ENTRY_REF(NULL, 0)), 1)))) \
	X(rig_submission_make, RIG_EINVAL, "ref 0 names a function loaded on P2", (make1(pd.d, LAUNCH(fn, 16, REF1(RIG_ENTRY_REF(fn2, 0)), 1)))) \
	X(rig_submission_make, RIG_EINVAL, "it names no C function", (make1(pd.d, rig_part_fill(NULL, 16, NULL, 0)))) \
	X(rig_submission_make, RIG_EINVAL, "-1 refs is negative", (make1(pd.d, rig_part_fill(fill_nothing, 16, ref_ok, (size_t)-1)))) \
	X(rig_submission_make, RIG_EINVAL, "lie past the part's 8 params bytes", (make1(pd.d, rig_part_fill(fill_nothing, 8, REF1(RIG_WRITE(0, INT64_MAX - 7)), 1)))) \
	X(rig_submission_make, RIG_EINVAL, "it names no buffer", (make1(pd.d, rig_part_words(NULL)))) \
	X(rig_submission_make, RIG_EINVAL, "its buffer is dead", (make1(pd.d, rig_part_words(p_dead)))) \
	X(rig_submission_make, RIG_EINVAL, "no multiple of 4", (make1(pd.d, rig_part_words(words3)))) \
	X(rig_submission_make, RIG_EINVAL, "fixed 0 has no buffer", (make_fixed((struct rig_fixed){ NULL, RIG_READ_ONLY }))) \
	X(rig_submission_make, RIG_EINVAL, "fixed 0 is dead", (make_fixed((struct rig_fixed){ p_dead, RIG_READ_ONLY }))) \
	X(rig_submission_make, RIG_EINVAL, "fixed 0 has no access (0)", (make_fixed((struct rig_fixed){ pa, 0 }))) \
	X(rig_submission_make, RIG_EINVAL, "admits only reads", (make_fixed((struct rig_fixed){ p_ro, RIG_READ_WRITE }))) \
	X(rig_submission_make, RIG_EINVAL, "fixed 0 lies on P2, not P", (make_fixed((struct rig_fixed){ on_p2, RIG_READ_ONLY }))) \
	/* ---- Submissions: what a program reads of them ---- */	\
	X(rig_submission_slots, RIG_EINVAL, "the submission is NULL", (EMPTY(rig_submission_slots(NULL) == 0))) \
	X(rig_submission_part, RIG_EINVAL, "the submission is NULL", (rig_submission_part(NULL, 0, &oq, &ofl, &onf))) \
	X(rig_submission_part, RIG_EINVAL, "the queue is NULL", (rig_submission_part(s_pcopy, 0, NULL, &ofl, &onf))) \
	X(rig_submission_part, RIG_EINVAL, "the follows is NULL", (rig_submission_part(s_pcopy, 0, &oq, NULL, &onf))) \
	X(rig_submission_part, RIG_EINVAL, "no part 1 (the submission has 1)", (rig_submission_part(s_pcopy, 1, &oq, &ofl, &onf))) \
	X(rig_submission_part, RIG_EINVAL, "no part 18446744073709551615", (rig_submission_part(s_pcopy, (size_t)-1, &oq, &ofl, &onf))) \
	X(rig_submission_address, RIG_EINVAL, "the submission is NULL", (rig_submission_address(NULL, pa, &ou))) \
	X(rig_submission_address, RIG_EINVAL, "out is NULL", (rig_submission_address(s_launch, pa, NULL))) \
	X(rig_submission_address, RIG_EINVAL, "the buffer is NULL", (rig_submission_address(s_launch, NULL, &ou))) \
	X(rig_submission_address, RIG_EINVAL, "the buffer is dead", (rig_submission_address(s_launch, p_dead, &ou))) \
	X(rig_submission_address, RIG_EINVAL, "no buffer of the submission's fixed memory", (rig_submission_address(s_launch, pb, &ou))) \
	X(rig_submission_release, VOID, NULL, (rig_submission_release(NULL), VOID)) \
	/* ---- Runs ---- */						\
	X(rig_run_take, RIG_EINVAL, "the submission is NULL", (rig_run_take(NULL, &orun))) \
	X(rig_run_take, RIG_EINVAL, "out is NULL", (rig_run_take(s_launch, NULL))) \
	X(rig_run_store, RIG_EINVAL, "the run is NULL", (rig_run_store(NULL, 0, grid, group, host, 8))) \
	X(rig_run_store, RIG_EINVAL, "no part 1 (the submission has 1)", (store(1, grid, group, host, 8))) \
	X(rig_run_store, RIG_EINVAL, "-1 bytes is negative", (store(0, grid, group, host, (size_t)-1))) \
	X(rig_run_store, RIG_EINVAL, "24 bytes for part 0, which has 16", (store(0, grid, group, host, 24))) \
	X(rig_run_store, RIG_EINVAL, "the params are NULL", (store(0, grid, group, NULL, 8))) \
	X(rig_run_store, RIG_EINVAL, "an empty grid or group", (store(0, NULL, group, host, 8))) \
	X(rig_run_store, RIG_EINVAL, "an empty grid or group", (store(0, grid, empty_group, host, 8))) \
	X(rig_run_store, RIG_EINVAL, "1024 x 1 x 1 threads, more than the 64", (store(0, grid, big_group, host, 8))) \
	X(rig_run_params, RIG_EINVAL, "the run is NULL", (EMPTY(!rig_run_params(NULL, 0)))) \
	X(rig_run_release, VOID, NULL, (rig_run_release(NULL), VOID)) \
	/* ---- Submits ---- */						\
	X(rig_submit, RIG_EINVAL, "the run is NULL", (rig_submit(NULL, BUFS(pa, pb), 2, NULL, 0, &op))) \
	X(rig_submit, RIG_EINVAL, "1 buffers for 2 slots", (rig_submit(take(s_pcopy), BUFS(pa), 1, NULL, 0, &op))) \
	X(rig_submit, RIG_EINVAL, "18446744073709551615 buffers for 2 slots", (rig_submit(take(s_pcopy), BUFS(pa, pb), (size_t)-1, NULL, 0, &op))) \
	X(rig_submit, RIG_EINVAL, "the buffers array is NULL", (rig_submit(take(s_pcopy), NULL, 2, NULL, 0, &op))) \
	X(rig_submit, RIG_EINVAL, "the waits array is NULL", (rig_submit(take(s_pcopy), BUFS(pa, pb), 2, NULL, 1, &op))) \
	X(rig_submit, RIG_EINVAL, "-1 waits is negative", (rig_submit(take(s_pcopy), BUFS(pa, pb), 2, WAITS({ pd.d, 0 }), (size_t)-1, &op))) \
	X(rig_submit, RIG_EINVAL, "slot 0 has no buffer", (rig_submit(take(s_pcopy), BUFS(NULL, pb), 2, NULL, 0, &op))) \
	X(rig_submit, RIG_EINVAL, "slot 1's buffer is dead", (rig_submit(take(s_pcopy), BUFS(pa, p_dead), 2, NULL, 0, &op))) \
	X(rig_submit, RIG_EINVAL, "slot 1's buffer lies on P2, not P", (rig_submit(take(s_pcopy), BUFS(pa, on_p2), 2, NULL, 0, &op))) \
	X(rig_submit, RIG_EINVAL, "slot 1's buffer admits only reads", (rig_submit(take(s_pcopy), BUFS(pa, p_ro), 2, NULL, 0, &op))) \
	X(rig_submit, RIG_EINVAL, "src has 64 bytes and dst 3", (rig_submit(take(s_pcopy), BUFS(pa, words3), 2, NULL, 0, &op))) \
	X(rig_submit, RIG_EINVAL, "src and dst share a byte", (rig_submit(take(s_pcopy), BUFS(pa, pa), 2, NULL, 0, &op))) \
	X(rig_submit, RIG_EINVAL, "wait 0 names no device", (rig_submit(take(s_pcopy), BUFS(pa, pb), 2, WAITS({ NULL, 1 }), 1, &op))) \
	X(rig_submit, RIG_EINVAL, "the run holds an empty grid", (rig_submit(take(s_launch), BUFS(pb), 1, NULL, 0, &op))) \
	X(rig_submit, RIG_ELOST, "PL is lost: closed", (rig_submit(take(s_gone), NULL, 0, NULL, 0, &op))) \
	/* ---- The driver contract's calls a program makes ---- */	\
	X(rig_memory_opener, VOID, "out is NULL", (rig_memory_opener("X", NULL), VOID)) \
	X(rig_io_device_opener, VOID, "the Io opener is NULL", (rig_io_device_opener(NULL, &oo), VOID)) \
	X(rig_io_device_opener, VOID, "the Io opener's table is NULL", (rig_io_device_opener(&(struct rig_io_opener){ .name = "X" }, &oo), VOID)) \
	X(rig_io_device_opener, VOID, "out is NULL", (rig_io_device_opener(&dop, NULL), VOID)) \
	X(rig_word_wake, VOID, NULL, (rig_word_wake(NULL), VOID)) \
	X(rig_word_sleep, VOID, NULL, (rig_word_sleep(NULL, 1, 1000) ? 0 : VOID)) \
	X(rig_code_sync, VOID, NULL, (rig_code_sync(NULL, 64), VOID)) \
	/* ---- The polled driver ---- */				\
	X(rig_polled_create, -EINVAL, "the config is NULL", (rig_polled_create(NULL, &opl))) \
	X(rig_polled_create, -EINVAL, "out is NULL", (rig_polled_create(&(struct rig_polled_config){ .size = sizeof(struct rig_polled_config) }, NULL))) \
	X(rig_polled_create, -EINVAL, "a config of 0 bytes", (rig_polled_create(&(struct rig_polled_config){ 0 }, &opl))) \
	X(rig_polled_destroy, VOID, NULL, (rig_polled_destroy(NULL), VOID)) \
	X(rig_polled_opener, RIG_EINVAL, "the polled driver is NULL", (EMPTY(!rig_polled_opener(NULL)))) \
	X(rig_polled_fail, -EINVAL, "the polled driver is NULL", (rig_polled_fail(NULL, "room"))) \
	X(rig_polled_fail, -EINVAL, "\"bogus\" is no call it fails", (rig_polled_fail(pd.p, "bogus"))) \
	X(rig_polled_fail, -EINVAL, "the call is NULL", (rig_polled_fail(pd.p, NULL))) \
	X(rig_polled_stall, VOID, "the polled driver is NULL", (rig_polled_stall(NULL, true), VOID)) \
	X(rig_polled_fault, VOID, "the polled driver is NULL", (rig_polled_fault(NULL, 1, 0), VOID)) \
	X(rig_polled_block, -EINVAL, "the polled driver is NULL", (rig_polled_block(NULL, "room", true))) \
	X(rig_polled_block, -EINVAL, "\"alloc\" is no call it blocks", (rig_polled_block(pd.p, "alloc", true))) \
	X(rig_polled_block, -EINVAL, "the call is NULL", (rig_polled_block(pd.p, NULL, true))) \
	X(rig_polled_blocked, RIG_EINVAL, "the polled driver is NULL", (EMPTY(rig_polled_blocked(NULL) == 0))) \
	X(rig_polled_stops, RIG_EINVAL, "the polled driver is NULL", (EMPTY(rig_polled_stops(NULL) == 0))) \
	X(rig_polled_overlaps, RIG_EINVAL, "the polled driver is NULL", (EMPTY(rig_polled_overlaps(NULL) == 0))) \
	X(rig_polled_events_fd, RIG_EINVAL, "the polled driver is NULL", (EMPTY(rig_polled_events_fd(NULL) == -1))) \
	X(rig_polled_makes, RIG_EINVAL, "the polled driver is NULL", (EMPTY(rig_polled_makes(NULL) == 0))) \
	X(rig_polled_ran, RIG_EINVAL, "the polled driver is NULL", (EMPTY(rig_polled_ran(NULL) == 0))) \
	X(rig_polled_commits, RIG_EINVAL, "the polled driver is NULL", (EMPTY(rig_polled_commits(NULL) == 0))) \
	X(rig_polled_submits, RIG_EINVAL, "the polled driver is NULL", (EMPTY(rig_polled_submits(NULL) == 0))) \
	X(rig_polled_committed, RIG_EINVAL, "the polled driver is NULL", (EMPTY(rig_polled_committed(NULL) == 0))) \
	X(rig_polled_grows, RIG_EINVAL, "the polled driver is NULL", (EMPTY(rig_polled_grows(NULL) == 0))) \
	X(rig_polled_live_regions, RIG_EINVAL, "the polled driver is NULL", (EMPTY(rig_polled_live_regions(NULL) == 0))) \
	X(rig_polled_live_images, RIG_EINVAL, "the polled driver is NULL", (EMPTY(rig_polled_live_images(NULL) == 0))) \
	X(rig_polled_open, RIG_EINVAL, "the polled driver is NULL", (EMPTY(!rig_polled_open(NULL)))) \
	/* ---- The AMD path (a machine of no files: nothing is touched) ---- */ \
	X(rig_pci_machine_at, RIG_EINVAL, "root or out is NULL", (rig_pci_machine_at(NULL, &om))) \
	X(rig_pci_machine_at, RIG_EINVAL, "root or out is NULL", (rig_pci_machine_at("/nowhere", NULL))) \
	X(rig_pci_machine_at, RIG_EINVAL, "is not an absolute path", (rig_pci_machine_at("nowhere", &om))) \
	X(rig_pci_machine_release, VOID, NULL, (rig_pci_machine_release(NULL), VOID)) \
	X(rig_amd_pci_buses, RIG_EINVAL, "out or n is NULL", (rig_amd_pci_buses(fm, NULL, &on))) \
	X(rig_amd_pci_buses, RIG_EINVAL, "out or n is NULL", (rig_amd_pci_buses(fm, &oa, NULL))) \
	X(rig_amd_pci_gpu, RIG_EINVAL, "out is NULL", (rig_amd_pci_gpu(fm, NULL, 0, NULL))) \
	X(rig_amd_pci_gpu, RIG_EINVAL, "GPU -1 is negative", (rig_amd_pci_gpu(fm, NULL, -1, &oop))) \
	X(rig_amd_pci_opener_free, VOID, NULL, (rig_amd_pci_opener_free(NULL), VOID)) \
	X(rig_amd_pci_describe, RIG_EINVAL, "out is NULL", (rig_amd_pci_describe(fm, 0, NULL))) \
	X(rig_amd_pci_describe, RIG_EINVAL, "GPU -1 is negative", (rig_amd_pci_describe(fm, -1, &oinfo))) \
	X(rig_amd_pci_detach, RIG_EINVAL, "progress is NULL", (rig_amd_pci_detach(fm, 0, NULL))) \
	X(rig_amd_pci_detach, RIG_EINVAL, "GPU -1 is negative", (rig_amd_pci_detach(fm, -1, &oprog))) \
	X(rig_amd_pci_attach, RIG_EINVAL, "GPU -1 is negative", (rig_amd_pci_attach(fm, -1))) \
	X(rig_amd_pci_reset, RIG_EINVAL, "GPU -1 is negative", (rig_amd_pci_reset(fm, -1))) \
	X(rig_amd_firmware_directory, RIG_EINVAL, "buf is NULL", (rig_amd_firmware_directory(NULL, 8))) \
	X(rig_amd_firmware_directory, RIG_EINVAL, "-1 bytes is negative", (rig_amd_firmware_directory(host, (size_t)-1))) \
	X(rig_amd_firmware_install, RIG_EINVAL, "more than", (rig_amd_firmware_install(DIRS("/a", "/a", "/a", "/a", "/a", "/a", "/a", "/a", "/a", "/a", "/a", "/a", "/a", "/a", "/a", "/a", "/a", NULL), dir, NULL))) \
	X(rig_amd_pci_doctor, RIG_EINVAL, "out is NULL", (rig_amd_pci_doctor(fm, NULL, 0, NULL, NULL))) \
	X(rig_amd_pci_doctor, RIG_EINVAL, "proc->size 0 is not", (rig_amd_pci_doctor(fm, NULL, 0, &(struct rig_doctor_process){ 0 }, stdout))) \
	X(rig_doctor_process_read, VOID, "out is NULL", (rig_doctor_process_read(NULL), VOID))

/* ---- The world the rows refuse to change ---- */

static int
store(size_t i, const uint32_t g[3], const uint32_t gr[3], const void *params,
      size_t bytes)
{
	struct rig_run *r = take(s_launch);
	int ret = rig_run_store(r, i, g, gr, params, bytes);

	rig_run_release(r);
	return ret;
}

struct state {
	uint64_t words[RIG_WORD_SLOTS];
	uint64_t allocated[ND], budget[ND];
	const char *lost[ND];
	uint64_t submits, ran, makes;
	int64_t regions, images;
	bool exclusive;
	unsigned char bytes[64];
	int files;
};

static struct state
snapshot(void)
{
	struct state st = { 0 };

	for (int i = 0; i < RIG_WORD_SLOTS; i++)
		st.words[i] = atomic_load(&rig_words[i]);
	for (int i = 0; i < ND; i++) {
		st.allocated[i] = rig_allocated(dev[i]);
		st.budget[i] = rig_budget(dev[i]);
		st.lost[i] = rig_lost(dev[i]);
	}
	st.submits = rig_polled_submits(pd.p);
	st.ran = rig_polled_ran(pd.p);
	st.makes = rig_polled_makes(pd.p);
	st.regions = rig_polled_live_regions(pd.p);
	st.images = rig_polled_live_images(pd.p);
	st.exclusive = rig_buffer_exclusive(excl);
	assert_int_equal(rig_buffer_read(b, 0, st.bytes, sizeof(st.bytes)), 0);
	st.files = count_entries(dir);
	return st;
}

/* What changed between a and z, or NULL. */
static const char *
changed(const struct state *a, const struct state *z)
{
	if (memcmp(a->words, z->words, sizeof(a->words)))
		return "a timeline word";
	for (int i = 0; i < ND; i++) {
		if (a->allocated[i] != z->allocated[i])
			return "a device's allocated bytes";
		if (a->budget[i] != z->budget[i])
			return "a device's budget";
		if (a->lost[i] != z->lost[i])
			return "a device's loss";
	}
	if (a->submits != z->submits || a->ran != z->ran || a->makes != z->makes)
		return "the polled driver's submits, runs or makes";
	if (a->regions != z->regions || a->images != z->images)
		return "the polled driver's regions or images";
	if (a->exclusive != z->exclusive)
		return "a buffer's holds";
	if (memcmp(a->bytes, z->bytes, sizeof(a->bytes)))
		return "a buffer's bytes";
	if (a->files != z->files)
		return "the files of the folder";
	return NULL;
}

static int
setup(void **state)
{
	struct rig_part_spec copy = rig_part_copy(RIG_SLOT(0), RIG_SLOT(1));
	struct rig_ref wref = RIG_WRITE(0, 0);
	struct rig_part_spec launch, fill;
	struct rig_buffer *fixed_b;
	unsigned char pattern[64];

	snprintf(dir, sizeof(dir), "%s/refusals.d", TEST_TMP);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/f.bin", dir);
	snprintf(missing, sizeof(missing), "%s/missing.bin", dir);
	unlink(path);
	pd = polled_open((struct rig_polled_config){ .name = "P" });
	pd2 = polled_open((struct rig_polled_config){ .name = "P2" });
	assert_int_equal(rig_memory_device("RM", &m), 0);
	assert_int_equal(rig_memory_device("RM2", &m2), 0);
	assert_int_equal(rig_memory_device("RL", &lost), 0);
	assert_int_equal(rig_disk_opener_init(&dop, "RDISK", NULL), 0);
	assert_int_equal(rig_open_io(&dop, &disk), 0);
	assert_int_equal(rig_disk_opener_init(&dop_lost, "RDL", NULL), 0);
	assert_int_equal(rig_open_io(&dop_lost, &lost_disk), 0);
	assert_int_equal(rig_close(lost_disk), 0);
	assert_int_equal(rig_pci_machine_at("/nonexistent-rig-root", &fm), 0);
	dev[0] = pd.d, dev[1] = pd2.d, dev[2] = m, dev[3] = m2, dev[4] = lost, dev[5] = disk;

	b = buffer_new(m, 64);
	for (int i = 0; i < 64; i++)
		pattern[i] = (unsigned char)i;
	assert_int_equal(rig_buffer_write(b, 0, pattern, 64), 0);
	b8 = buffer_new(m, 8);
	assert_int_equal(rig_buffer_view(b, 0, 64, RIG_READ_ONLY, &ro), 0);
	on_m2 = buffer_new(m2, 64);
	excl = buffer_new(m, 16);
	lost_b = buffer_new(lost, 64);
	assert_int_equal(rig_close(lost), 0);	/* RL is lost, lost_b dead */
	dead = lost_b;
	pa = buffer_new(pd.d, 64);
	pb = buffer_new(pd.d, 64);
	words3 = buffer_new(pd.d, 3);
	assert_int_equal(rig_buffer_view(pb, 0, 64, RIG_READ_ONLY, &p_ro), 0);
	on_p2 = buffer_new(pd2.d, 64);
	gone = polled_open((struct rig_polled_config){ .name = "PL" });
	p_dead = buffer_new(gone.d, 64);
	assert_int_equal(rig_image_load(gone.d, "code", 4, &img_gone), 0);
	fill = rig_part_fill(fill_nothing, 8, NULL, 0);
	assert_int_equal(rig_submission_make(gone.d, &fill, 1, NULL, 0, (struct rig_keep){ 0 },
					     &s_gone), 0);
	assert_int_equal(rig_close(gone.d), 0);	/* PL is lost, p_dead dead */
	assert_int_equal(rig_claim_hold(&b8, 1, &hold), 0);
	assert_int_equal(rig_disk_create_file(disk, path, 64, &file), 0);
	snprintf(missing, sizeof(missing), "%s/g.bin", dir);
	assert_int_equal(rig_disk_create_file(disk, missing, 64, &file2), 0);
	snprintf(missing, sizeof(missing), "%s/missing.bin", dir);
	unlink(path);	/* the file buffers stay; the folder is empty */
	snprintf(host, sizeof(host), "%s/g.bin", dir);
	unlink(host);

	assert_int_equal(rig_image_load(pd.d, "code", 4, &img), 0);
	assert_int_equal(rig_image_function(img, "k/16/64", &fn), 0);
	assert_int_equal(rig_image_load(pd2.d, "code", 4, &img2), 0);
	assert_int_equal(rig_image_function(img2, "k/16/64", &fn2), 0);
	assert_int_equal(rig_submission_make(m, &copy, 1, NULL, 0, (struct rig_keep){ 0 },
					     &s_copy), 0);
	assert_int_equal(rig_submission_make(pd.d, &copy, 1, NULL, 0, (struct rig_keep){ 0 },
					     &s_pcopy), 0);
	launch = rig_part_launch(fn, 16, &wref, 1);
	fixed_b = pa;
	assert_int_equal(rig_submission_make(pd.d, &launch, 1,
					     &(struct rig_fixed){ fixed_b, RIG_READ_ONLY }, 1,
					     (struct rig_keep){ 0 }, &s_launch), 0);
	memset(host, 0, sizeof(host));
	return 0;
}

static int
teardown(void **state)
{
	rig_submission_release(s_copy);
	rig_submission_release(s_pcopy);
	rig_submission_release(s_launch);
	rig_submission_release(s_gone);
	rig_image_release(img_gone);
	rig_device_release(lost_disk);
	rig_image_release(img);
	rig_image_release(img2);
	for (struct rig_buffer **x = (struct rig_buffer *[]){ b, b8, ro, on_m2, excl, lost_b, pa,
		pb, words3, p_ro, on_p2, p_dead, file, file2, NULL }; *x; x++)
		rig_buffer_release(*x);
	rig_device_release(m);
	rig_device_release(m2);
	rig_device_release(lost);
	rig_device_release(disk);
	rig_claim_release(hold);
	rig_device_release(gone.d);
	rig_polled_destroy(gone.p);
	polled_close(pd2);
	polled_close(pd);
	rig_pci_machine_release(fm);
	rmdir(dir);
	return 0;
}

/* ---- The table ---- */

struct row {
	const char *func, *cause, *call;
	int want;
};

#define ROW(func, want, cause, call) { #func, cause, #call, want },
static const struct row rows[] = { ROWS(ROW) };

static int
run_row(size_t i)
{
	size_t n = 0;

#define RUN(func, want, cause, call) if (i == n++) return call;
	ROWS(RUN)
	return 0;
}

static void
test_every_bad_call_refused(void **state)
{
	size_t nrows = sizeof(rows) / sizeof(rows[0]), bad = 0;
	char prefix[64];

	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		struct state before = snapshot(), after;
		const char *what;
		int got;

		rig_why_set("none", 0, "untouched");
		got = run_row(i);
		after = snapshot();
		snprintf(prefix, sizeof(prefix), "%s: ", r->func);
		what = got != r->want ? "the status" :
		       r->cause && strncmp(rig_why(), prefix, strlen(prefix)) ? "the function named" :
		       r->cause && !strstr(rig_why(), r->cause) ? "the cause" :
		       !r->cause && strcmp(rig_why(), "none: untouched") ? "a message where none is due" :
		       changed(&before, &after);
		if (!what)
			continue;
		bad++;
		printf("# row %zu: %s\n#   %s: got %d, want %d; rig_why() \"%s\", want \"%s%s\"\n",
		       i, r->call, what, got, r->want, rig_why(), prefix, r->cause ? r->cause : "");
	}
	printf("# %zu rows, %zu bad\n", nrows, bad);
	assert_int_equal(bad, 0);
}

/* ---- One test per defect of issue 14 ---- */

/* Item 1: a taken run of a copy-only submission stays valid after the
 * submission is released (rig.h: rig_submission_release). */
static void
test_taken_run_outlives_its_submission(void **state)
{
	struct rig_part_spec copy = rig_part_copy(RIG_SLOT(0), RIG_SLOT(1));
	struct rig_submission *s;
	struct rig_buffer *x = buffer_new(m, 8), *y = buffer_new(m, 8);
	struct rig_run *r1, *r2;
	char back[8];

	assert_int_equal(rig_submission_make(m, &copy, 1, NULL, 0, (struct rig_keep){ 0 }, &s), 0);
	assert_int_equal(rig_run_take(s, &r1), 0);
	assert_int_equal(rig_run_take(s, &r2), 0);
	rig_submission_release(s);
	assert_int_equal(rig_buffer_write(x, 0, "1234567", 8), 0);
	assert_int_equal(rig_submit(r1, BUFS(x, y), 2, NULL, 0, NULL), 0);
	assert_int_equal(rig_buffer_read(y, 0, back, 8), 0);
	assert_string_equal(back, "1234567");
	rig_run_release(r2);	/* the last taken run lets the submission go */
	rig_buffer_release(x);
	rig_buffer_release(y);
}

/* Item 2: a ref's at near INT64_MAX does not wrap round the bounds check. */
static void
test_ref_at_near_int64_max_refused(void **state)
{
	struct rig_ref r = RIG_WRITE(0, INT64_MAX - 7);

	assert_int_equal(make1(pd.d, LAUNCH(fn, 16, &r, 1)), RIG_EINVAL);
	assert_why("rig_submission_make: part 0 (launch): ref 0's 8 bytes at 9223372036854775800 lie past");
	r = RIG_READ(0, INT64_MAX - 15);
	assert_int_equal(make1(pd.d, rig_part_fill(fill_nothing, 16, &r, 1)), RIG_EINVAL);
	assert_why("lie past the part's 16 params bytes");
	assert_int_equal(rig_polled_submits(pd.p), 0);
}

/* Item 3: counts negative as ptrdiff_t are refused, not read past; a slot
 * past RIG_SLOTS_MAX is refused, not allocated for. */
static void
test_counts_and_slots_refused(void **state)
{
	struct rig_ref one = RIG_READ(0, 0);
	struct rig_point w = { pd.d, 0 };
	struct rig_run *r;
	uint64_t held = rig_allocated(pd.d);

	assert_int_equal(make1(pd.d, LAUNCH(fn, 16, &one, (size_t)-1)), RIG_EINVAL);
	assert_why("rig_submission_make: part 0 (launch): -1 refs is negative");
	assert_int_equal(make1(pd.d, LAUNCH(fn, 16, REF1(RIG_READ((int64_t)1 << 40, 0)), 1)),
			 RIG_EINVAL);
	assert_why("rig_submission_make: part 0 (launch): ref 0 names slot 1099511627776, above the most, 65535");
	assert_int_equal(make1(pd.d, rig_part_copy(RIG_SLOT((int64_t)1 << 40), RIG_SLOT(0))),
			 RIG_EINVAL);
	assert_why("rig_submission_make: part 0 (copy): src names slot 1099511627776, above the most");
	assert_int_equal(make1(pd.d, rig_part_copy(RIG_SLOT(0), RIG_SLOT(RIG_SLOTS_MAX))),
			 RIG_EINVAL);
	assert_int_equal(rig_run_take(s_pcopy, &r), 0);
	assert_int_equal(rig_submit(r, BUFS(pa, pb), 2, &w, (size_t)-1, NULL), RIG_EINVAL);
	assert_why("rig_submit: -1 waits is negative");
	assert_int_equal(rig_allocated(pd.d), held);
	assert_int_equal(rig_polled_submits(pd.p), 0);
}

/* Item 4: a copy of no bytes on the memory device copies nothing, and
 * points at nothing (UBSan's null-pointer report fails this test). */
static void
test_empty_copy_on_memory_device(void **state)
{
	struct rig_part_spec copy = rig_part_copy(RIG_SLOT(0), RIG_SLOT(1));
	struct rig_buffer *x = buffer_new(m, 0), *y = buffer_new(m, 0);
	struct rig_submission *s;
	struct rig_run *r;
	struct rig_point p;

	assert_int_equal(rig_buffer_copy(x, y, &p), 0);
	assert_int_equal(rig_wait(p, SECOND_NS), 0);
	assert_int_equal(rig_submission_make(m, &copy, 1, NULL, 0, (struct rig_keep){ 0 }, &s), 0);
	assert_int_equal(rig_run_take(s, &r), 0);
	assert_int_equal(rig_submit(r, BUFS(x, y), 2, NULL, 0, &p), 0);
	assert_true(rig_reached(p));
	rig_submission_release(s);
	rig_buffer_release(x);
	rig_buffer_release(y);
}

/* Item 6: a refused rig_disk_create_file leaves the path as it was: no
 * new file, and an existing file's bytes untouched. */
static void
test_refused_create_file_changes_nothing(void **state)
{
	struct rig_buffer *f = NULL;
	char back[4] = { 0 };
	int fd;

	assert_int_equal(rig_disk_create_file(disk, path, (size_t)1 << 62, &f), RIG_EINVAL);
	assert_why("rig_disk_create_file: ", "File too large");
	assert_null(f);
	assert_int_equal(access(path, F_OK), -1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	assert_int_equal(rig_disk_create_file(disk, path, (size_t)1 << 62, &f), RIG_EINVAL);
	fd = open(path, O_RDONLY);
	assert_int_equal(read(fd, back, sizeof(back)), 3);
	close(fd);
	assert_string_equal(back, "abc");
	/* A create that succeeds still empties an existing file. */
	assert_int_equal(rig_disk_create_file(disk, path, 8, &f), 0);
	rig_buffer_release(f);
	fd = open(path, O_RDONLY);
	assert_int_equal(read(fd, back, sizeof(back)), 4);
	close(fd);
	assert_memory_equal(back, "\0\0\0\0", 4);
	unlink(path);
}

/* Item 7: a group of more threads than its function allows is refused
 * (seed 000, entry; seed 002, launch). */
static void
test_group_above_function_threads_refused(void **state)
{
	uint64_t submits = rig_polled_submits(pd.p);
	struct rig_point p;
	struct rig_run *r;

	assert_int_equal(rig_run_take(s_launch, &r), 0);
	assert_int_equal(rig_run_store(r, 0, grid, big_group, NULL, 0), RIG_EINVAL);
	assert_why("rig_run_store: part 0: a group of 1024 x 1 x 1 threads, more than the 64 its function allows");
	assert_int_equal(rig_run_store(r, 0, grid, (uint32_t[]){ 65536, 65536, 2 }, NULL, 0),
			 RIG_EINVAL);
	assert_int_equal(rig_run_store(r, 0, grid, (uint32_t[]){ 4, 4, 4 }, NULL, 0), 0);
	assert_int_equal(rig_submit(r, BUFS(pb), 1, NULL, 0, &p), 0);
	assert_int_equal(rig_wait(p, 10 * SECOND_NS), 0);
	assert_int_equal(rig_polled_submits(pd.p), submits + 1);
}

/* Item 8: the refusals of rig_disk_opener_init and of rig_set_budget on a
 * lost device say why. */
static void
test_refusals_say_why(void **state)
{
	struct rig_io_opener o;
	uint64_t budget = rig_budget(lost);

	assert_int_equal(rig_disk_opener_init(&o, "D", &(struct rig_disk_options){ .size = 1 }),
			 -EINVAL);
	assert_why("rig_disk_opener_init: options of 1 bytes");
	assert_int_equal(rig_set_budget(lost, budget / 2), RIG_ELOST);
	assert_why("rig_set_budget: RL is lost: closed");
	assert_int_equal(rig_budget(lost), budget);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_bad_call_refused),
		cmocka_unit_test(test_taken_run_outlives_its_submission),
		cmocka_unit_test(test_ref_at_near_int64_max_refused),
		cmocka_unit_test(test_counts_and_slots_refused),
		cmocka_unit_test(test_empty_copy_on_memory_device),
		cmocka_unit_test(test_refused_create_file_changes_nothing),
		cmocka_unit_test(test_group_above_function_threads_refused),
		cmocka_unit_test(test_refusals_say_why),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
