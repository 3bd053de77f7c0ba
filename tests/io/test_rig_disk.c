/*
 * test_rig_disk: a disk is a device like any other, through rig's public
 * API (rig_open_io, file buffers, rig_buffer_copy, rig_disk_barrier,
 * rig_buffer_borrow):
 *  - round trips of random sizes and offsets between file buffers and
 *    buffers of a memory device and of the host device come back right,
 *    ordered by stamps alone (no wait but rig_buffer_read);
 *  - a chain across devices (host write, HOST's copy, the disk's write and
 *    read, a memory device's read) needs no wait;
 *  - values that complete out of order in the engine still reach the word
 *    in order;
 *  - a barrier follows the writes before it, also a borrowed map's;
 *  - a borrowed file is the file's bytes, both ways, and its map goes with
 *    it;
 *  - every refusal names the call and the cause and changes nothing.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "rig_common.h"

struct env {
	struct rig_device *disk, *mem, *host;
};

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	/* Small pieces, so a copy is many pieces in flight at once. */
	e->disk = rdisk_open("DISK", &(struct rig_disk_options){
		.size = sizeof(struct rig_disk_options), .chunk_bytes = 64 << 10 });
	TRY(rig_memory_device("M", &e->mem));
	TRY(rig_host_device(&e->host));
	*state = e;
	return 0;
}

static int
teardown(void **state)
{
	struct env *e = *state;

	assert_null(rig_lost(e->disk));
	rig_device_release(e->disk);
	rig_device_release(e->mem);
	rig_device_release(e->host);
	free(e);
	return 0;
}

static void
test_round_trips(void **state)
{
	struct env *e = *state;
	struct rig_device *hosts[] = { e->mem, e->host };

	print_message("# the disk runs as \"%s\"\n", rdisk_mode(e->disk));
	rig_round_trips(e->disk, hosts, 2, "trips.bin", 8u << 20, 1u << 20, 0x7ea, 300);
	assert_int_equal(rig_allocated(e->disk), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trips, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
