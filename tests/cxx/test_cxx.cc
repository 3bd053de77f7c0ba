// SPDX-License-Identifier: MIT
/*
 * test_cxx: rig from C++17. Includes every public header, uses their
 * macros (RIG_SLOT, RIG_READ, RIG_SOME...) and inline calls, and runs a
 * copy submission on the memory device, a submit of a fill that reads its
 * ref, and reads both back. Exit 0 on pass, 1 on failure.
 */
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "rig.h"
#include "rig_amd_pci.h"
#include "rig_base.h"
#include "rig_disk.h"
#include "rig_edge.h"
#include "rig_polled.h"

namespace {

int failures;

void
check(bool ok, const std::string &what)
{
	if (!ok) {
		std::fprintf(stderr, "FAIL: %s (rig_why: %s)\n", what.c_str(), rig_why());
		failures++;
	}
}

// A fill's C function, as a driver's queue calls it: reads its params.
extern "C" int
count_fill(void *queue_ctx, void *arg, uint64_t value)
{
	(void)queue_ctx;
	(void)value;
	return arg ? 0 : 1;
}

} // namespace

int
main()
{
	static_assert(RIG_VERSION_MAJOR >= 0 && RIG_VERSION_MINOR >= 0 &&
		      RIG_VERSION_PATCH >= 0, "version macros");
	const std::string version = std::to_string(RIG_VERSION_MAJOR) + "." +
		std::to_string(RIG_VERSION_MINOR) + "." + std::to_string(RIG_VERSION_PATCH);
	check(version == rig_version(), "rig_version() " + std::string(rig_version()) +
	      ", the headers say " + version);

	// The driver contract's types from C++: a word, an option.
	rig_opt hang = RIG_SOME(50), none = RIG_NONE;
	check(hang.some && hang.value == 50 && !none.some, "RIG_SOME, RIG_NONE");
	static_assert(sizeof(rig_words[0]) == 8, "rig_words is std::atomic<uint64_t>");
	check(rig_words[RIG_WORD_SLOTS - 1].load(std::memory_order_acquire) == 0,
	      "rig_words' last word reads 0 (no device has it)");
	check(rig_now_ns() > 0, "rig_now_ns()");

	rig_device *d = nullptr;
	check(rig_memory_device("CXX", &d) == 0, "rig_memory_device");
	if (!d)
		return 1;

	const char text[] = "hello from C++";
	std::vector<char> back(sizeof(text));
	rig_buffer *a = nullptr, *b = nullptr;
	check(rig_buffer_create(d, sizeof(text), RIG_MEMORY_DEVICE, &a) == 0, "create a");
	check(rig_buffer_create(d, sizeof(text), RIG_MEMORY_DEVICE, &b) == 0, "create b");
	check(rig_buffer_write(a, 0, text, sizeof(text)) == 0, "write a");

	// A prepared copy submission, run from its slots.
	rig_part_spec parts[] = {
		rig_part_copy(RIG_SLOT(0), RIG_SLOT(1)),
	};
	rig_submission *s = nullptr;
	check(rig_submission_make(d, parts, 1, nullptr, 0, rig_keep{ nullptr, nullptr },
				  &s) == 0, "rig_submission_make (copy)");
	rig_run *run = nullptr;
	check(rig_run_take(s, &run) == 0, "rig_run_take");
	rig_buffer *slots[] = { a, b };
	rig_point p{};
	check(rig_submit(run, slots, 2, nullptr, 0, &p) == 0, "rig_submit (copy)");
	check(rig_wait(p, 1000000000u) == 0, "rig_wait");
	check(rig_reached(p), "rig_reached");
	check(rig_buffer_read(b, 0, back.data(), back.size()) == 0, "read b");
	check(std::strcmp(back.data(), text) == 0,
	      std::string("copied \"") + text + "\", read \"" + back.data() + "\"");

	// A fill whose ref reads slot 0 (RIG_READ from C++).
	const rig_ref refs[] = { RIG_READ(0, 0) };
	rig_part_spec fill = rig_part_fill(count_fill, 8, refs, 1);
	rig_submission *fs = nullptr;
	check(rig_submission_make(d, &fill, 1, nullptr, 0, rig_keep{}, &fs) == 0,
	      "rig_submission_make (fill)");
	check(rig_run_take(fs, &run) == 0, "rig_run_take (fill)");
	check(rig_submit(run, slots, 1, nullptr, 0, &p) == 0, "rig_submit (fill)");
	check(rig_wait(p, 1000000000u) == 0, "rig_wait (fill)");

	rig_submission_release(fs);
	rig_submission_release(s);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_device_release(d);
	if (failures)
		return 1;
	std::printf("ok: rig %s from C++%ld: a copy and a fill submitted, \"%s\" read back\n",
		    rig_version(), __cplusplus / 100 % 100, back.data());
	return 0;
}
