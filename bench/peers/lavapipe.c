/* SPDX-License-Identifier: MIT */
/*
 * peers/lavapipe.c: Vulkan on the CPU (Mesa's lavapipe), the cheapest
 * submit Vulkan has: vkQueueSubmit with no command buffer that signals a
 * timeline semaphore, and a host wait on the semaphore's value.
 *
 *   batched_submit  n submits, each signaling the next value, then one
 *                   vkWaitSemaphores on the last: ns per submit
 *   round_trip      one submit, then vkWaitSemaphores on its value
 *
 * Picks the first VK_PHYSICAL_DEVICE_TYPE_CPU device (bench/run sets
 * VK_ICD_FILENAMES to lavapipe's ICD when it is installed, and
 * XDG_RUNTIME_DIR). Exits 77 (skipped) when there is no CPU device.
 */
#include <vulkan/vulkan.h>

#include "bench.h"

#include <errno.h>
#include <stdio.h>

#define WAIT_NS		10000000000ull	/* a host wait longer than this is a hang */

struct vk {
	VkInstance instance;
	VkDevice device;
	VkQueue queue;
	VkSemaphore timeline;
	uint64_t value;		/* the last value signaled */
};

static const struct bench *prog;

/* 0, or -EIO with a note naming the call and its VkResult. */
static int
check(VkResult r, const char *what)
{
	if (r == VK_SUCCESS)
		return 0;
	bench_note(prog, "%s: VkResult %d", what, (int)r);
	return -EIO;
}

static int
submit(struct vk *v)
{
	uint64_t value = v->value + 1;
	VkTimelineSemaphoreSubmitInfo values = {
		.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
		.signalSemaphoreValueCount = 1,
		.pSignalSemaphoreValues = &value,
	};
	VkSubmitInfo info = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.pNext = &values,
		.signalSemaphoreCount = 1,
		.pSignalSemaphores = &v->timeline,
	};
	int ret = check(vkQueueSubmit(v->queue, 1, &info, VK_NULL_HANDLE),
			"vkQueueSubmit");

	if (ret == 0)
		v->value = value;
	return ret;
}

static int
host_wait(struct vk *v)
{
	VkSemaphoreWaitInfo info = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
		.semaphoreCount = 1,
		.pSemaphores = &v->timeline,
		.pValues = &v->value,
	};

	return check(vkWaitSemaphores(v->device, &info, WAIT_NS), "vkWaitSemaphores");
}

static int
batched(void *arg, uint64_t n)
{
	struct vk *v = arg;
	int ret = 0;

	for (uint64_t i = 0; i < n && ret == 0; i++)
		ret = submit(v);
	return ret ? ret : host_wait(v);
}

static int
round_trip(void *arg)
{
	struct vk *v = arg;
	int ret = submit(v);

	return ret ? ret : host_wait(v);
}

/* The first CPU device; -ENODEV when there is none. */
static int
find_cpu(VkInstance instance, VkPhysicalDevice *out)
{
	VkPhysicalDevice all[16];
	uint32_t count = 16;
	VkResult r = vkEnumeratePhysicalDevices(instance, &count, all);

	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return -ENODEV;
	for (uint32_t i = 0; i < count; i++) {
		VkPhysicalDeviceProperties p;

		vkGetPhysicalDeviceProperties(all[i], &p);
		if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) {
			bench_note(prog, "device: %s", p.deviceName);
			*out = all[i];
			return 0;
		}
	}
	return -ENODEV;
}

static int
open_device(struct vk *v, VkPhysicalDevice pd)
{
	float priority = 1.0f;
	VkPhysicalDeviceVulkan12Features features = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
		.timelineSemaphore = VK_TRUE,
	};
	VkDeviceQueueCreateInfo queue = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = 0,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	VkDeviceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = &features,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &queue,
	};
	VkSemaphoreTypeCreateInfo type = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
		.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
		.initialValue = 0,
	};
	VkSemaphoreCreateInfo sem = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
		.pNext = &type,
	};
	int ret = check(vkCreateDevice(pd, &info, NULL, &v->device), "vkCreateDevice");

	if (ret)
		return ret;
	vkGetDeviceQueue(v->device, 0, 0, &v->queue);
	return check(vkCreateSemaphore(v->device, &sem, NULL, &v->timeline),
		     "vkCreateSemaphore");
}

/* The semaphore's counter must hold the last value submitted. */
static int
verify(struct vk *v)
{
	uint64_t got = 0;
	int ret = check(vkGetSemaphoreCounterValue(v->device, v->timeline, &got),
			"vkGetSemaphoreCounterValue");

	if (ret == 0 && got != v->value) {
		bench_note(prog, "timeline holds %llu, not %llu",
			   (unsigned long long)got, (unsigned long long)v->value);
		ret = -EPROTO;
	}
	return ret;
}

int
main(int argc, char **argv)
{
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "rig-bench",
		.apiVersion = VK_API_VERSION_1_2,
	};
	VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
	};
	VkPhysicalDevice pd;
	struct vk v = { 0 };
	struct bench b;
	int ret;

	bench_init(&b, "lavapipe", argc, argv);
	prog = &b;
	if (vkCreateInstance(&info, NULL, &v.instance) != VK_SUCCESS ||
	    find_cpu(v.instance, &pd) < 0) {
		bench_note(&b, "skipped: no Vulkan 1.2 CPU device");
		if (v.instance)
			vkDestroyInstance(v.instance, NULL);
		return BENCH_SKIP;
	}
	ret = open_device(&v, pd);
	if (ret == 0)
		ret = bench_per_run(&b, "batched_submit", "lavapipe", BENCH_PEER,
				    batched, &v, bench_count(&b, 10000, 1000), 0);
	if (ret == 0)
		ret = bench_per_op(&b, "round_trip", "lavapipe", BENCH_PEER,
				   round_trip, &v, bench_count(&b, 2000, 200), 0);
	if (ret == 0)
		ret = verify(&v);
	if (v.device) {
		vkDeviceWaitIdle(v.device);
		if (v.timeline)
			vkDestroySemaphore(v.device, v.timeline, NULL);
		vkDestroyDevice(v.device, NULL);
	}
	vkDestroyInstance(v.instance, NULL);
	return ret ? 1 : 0;
}
