/* SPDX-License-Identifier: MIT */
/*
 * peers/pocl.c: OpenCL on the CPU (PoCL's pthread device), as a program
 * uses it: one in-order queue, kernels built from source.
 *
 *   batched_submit  n launches of an empty kernel (one work-item), then one
 *                   clFinish: ns per launch
 *   round_trip      one launch, then clFinish
 *   vector_add      c = a + b on 16 Mi floats, launch + clFinish (GB/s of
 *                   bytes read and written: 12 per element)
 *
 * Exits 77 (skipped) when no OpenCL platform offers a CPU device.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include "bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define VADD_ELEMS	(16u << 20)

static const char source[] =
	"__kernel void empty(void) {}\n"
	"__kernel void vadd(__global const float *a, __global const float *b,\n"
	"                   __global float *c)\n"
	"{\n"
	"	size_t i = get_global_id(0);\n"
	"	c[i] = a[i] + b[i];\n"
	"}\n";

struct cl {
	cl_device_id device;
	cl_context context;
	cl_command_queue queue;
	cl_program program;
	cl_kernel empty;
	cl_kernel vadd;
	cl_mem a, b, c;
};

static const struct bench *prog;

/* 0, or -EIO with a note naming the call and its OpenCL error. */
static int
check(cl_int err, const char *what)
{
	if (err == CL_SUCCESS)
		return 0;
	bench_note(prog, "%s: OpenCL error %d", what, err);
	return -EIO;
}

static int
launch_empty(struct cl *c)
{
	size_t one = 1;

	return check(clEnqueueNDRangeKernel(c->queue, c->empty, 1, NULL, &one,
					    NULL, 0, NULL, NULL),
		     "clEnqueueNDRangeKernel(empty)");
}

static int
batched(void *arg, uint64_t n)
{
	struct cl *c = arg;
	int ret = 0;

	for (uint64_t i = 0; i < n && ret == 0; i++)
		ret = launch_empty(c);
	return ret ? ret : check(clFinish(c->queue), "clFinish");
}

static int
round_trip(void *arg)
{
	struct cl *c = arg;
	int ret = launch_empty(c);

	return ret ? ret : check(clFinish(c->queue), "clFinish");
}

static int
vector_add(void *arg)
{
	struct cl *c = arg;
	size_t n = VADD_ELEMS;
	int ret = check(clEnqueueNDRangeKernel(c->queue, c->vadd, 1, NULL, &n,
					       NULL, 0, NULL, NULL),
			"clEnqueueNDRangeKernel(vadd)");

	return ret ? ret : check(clFinish(c->queue), "clFinish");
}

/* The first CPU device of any platform; -ENODEV when there is none. */
static int
find_cpu(cl_device_id *out)
{
	cl_platform_id platforms[16];
	cl_uint count = 0;

	if (clGetPlatformIDs(16, platforms, &count) != CL_SUCCESS)
		count = 0;
	for (cl_uint i = 0; i < count && i < 16; i++) {
		cl_uint n = 0;

		if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_CPU, 1, out, &n) ==
		    CL_SUCCESS && n > 0)
			return 0;
	}
	return -ENODEV;
}

static int
build(struct cl *c)
{
	const char *src = source;
	cl_int err;

	c->context = clCreateContext(NULL, 1, &c->device, NULL, NULL, &err);
	if (check(err, "clCreateContext"))
		return -EIO;
	c->queue = clCreateCommandQueueWithProperties(c->context, c->device, NULL, &err);
	if (check(err, "clCreateCommandQueueWithProperties"))
		return -EIO;
	c->program = clCreateProgramWithSource(c->context, 1, &src, NULL, &err);
	if (check(err, "clCreateProgramWithSource") ||
	    check(clBuildProgram(c->program, 1, &c->device, "", NULL, NULL),
		  "clBuildProgram"))
		return -EIO;
	c->empty = clCreateKernel(c->program, "empty", &err);
	if (check(err, "clCreateKernel(empty)"))
		return -EIO;
	c->vadd = clCreateKernel(c->program, "vadd", &err);
	return check(err, "clCreateKernel(vadd)");
}

/* Buffers a = i % 1000, b = 1, c; the vadd kernel's arguments. */
static int
make_buffers(struct cl *c)
{
	size_t bytes = VADD_ELEMS * sizeof(float);
	float *a = malloc(bytes), *b = malloc(bytes);
	cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
	cl_int err = CL_OUT_OF_HOST_MEMORY;
	int ret;

	if (a && b) {
		for (size_t i = 0; i < VADD_ELEMS; i++) {
			a[i] = (float)(i % 1000);
			b[i] = 1.0f;
		}
		c->a = clCreateBuffer(c->context, in, bytes, a, &err);
		if (err == CL_SUCCESS)
			c->b = clCreateBuffer(c->context, in, bytes, b, &err);
		if (err == CL_SUCCESS)
			c->c = clCreateBuffer(c->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
	}
	free(a);
	free(b);
	ret = check(err, "clCreateBuffer");
	for (cl_uint i = 0; i < 3 && ret == 0; i++) {
		cl_mem *arg = i == 0 ? &c->a : i == 1 ? &c->b : &c->c;

		ret = check(clSetKernelArg(c->vadd, i, sizeof(cl_mem), arg),
			    "clSetKernelArg(vadd)");
	}
	return ret;
}

/* Reads back some of c and checks c = a + b. */
static int
verify(struct cl *c)
{
	float got[1000];
	size_t at = 1000 * 1234;
	int ret = check(clEnqueueReadBuffer(c->queue, c->c, CL_TRUE, at * sizeof(float),
					    sizeof(got), got, 0, NULL, NULL),
			"clEnqueueReadBuffer");

	for (size_t i = 0; i < 1000 && ret == 0; i++) {
		if (got[i] != (float)i + 1.0f) {
			bench_note(prog, "vadd: c[%zu] is %g, not %g", at + i,
				   got[i], (float)i + 1.0f);
			ret = -EPROTO;
		}
	}
	return ret;
}

static void
release(struct cl *c)
{
	if (c->a)
		clReleaseMemObject(c->a);
	if (c->b)
		clReleaseMemObject(c->b);
	if (c->c)
		clReleaseMemObject(c->c);
	if (c->vadd)
		clReleaseKernel(c->vadd);
	if (c->empty)
		clReleaseKernel(c->empty);
	if (c->program)
		clReleaseProgram(c->program);
	if (c->queue)
		clReleaseCommandQueue(c->queue);
	if (c->context)
		clReleaseContext(c->context);
}

int
main(int argc, char **argv)
{
	struct cl c = { 0 };
	struct bench b;
	int ret;

	bench_init(&b, "pocl", argc, argv);
	prog = &b;
	if (find_cpu(&c.device) < 0) {
		bench_note(&b, "skipped: no OpenCL platform offers a CPU device");
		return BENCH_SKIP;
	}
	ret = build(&c);
	if (ret == 0)
		ret = bench_per_run(&b, "batched_submit", "pocl", BENCH_PEER, batched,
				    &c, bench_count(&b, 10000, 1000), 0);
	if (ret == 0)
		ret = bench_per_op(&b, "round_trip", "pocl", BENCH_PEER, round_trip,
				   &c, bench_count(&b, 2000, 200), 0);
	if (ret == 0)
		ret = make_buffers(&c);
	if (ret == 0)
		ret = bench_per_op(&b, "vector_add", "pocl", BENCH_PEER, vector_add,
				   &c, bench_count(&b, 20, 4),
				   3.0 * VADD_ELEMS * sizeof(float));
	if (ret == 0)
		ret = verify(&c);
	release(&c);
	return ret ? 1 : 0;
}
