/* SPDX-License-Identifier: MIT */
/*
 * core/image.c: loading code on a device and naming its functions.
 *
 * An image lives while the program or a submission refers to it; a
 * submission lives while work submitted through it is in flight, so an
 * image unloads only once the work submitted before its release is done.
 * A device's end unloads every image it still has.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/image.h"

#ifdef RIG_TEST_HOOKS
void (*image_window)(void);
#endif

void
image_get(struct rig_image *img)
{
	atomic_fetch_add(&img->refs, 1);
}

static void
unload_locked(struct rig_image *img)
{
	struct rig_device *d = img->d;

	if (img->unloaded)
		return;
	if (d->ops->unload) {
		submit_call_hold(&d->sub);
		d->ops->unload(d->handle, img->image);
		submit_call_leave(&d->sub);
	}
	img->unloaded = true;
	if (img->prev)
		img->prev->next = img->next;
	else
		d->images = img->next;
	if (img->next)
		img->next->prev = img->prev;
}

void
image_end_all_locked(struct rig_device *d)
{
	while (d->images)
		unload_locked(d->images);
}

void
image_put(struct rig_image *img)
{
	struct rig_device *d = img->d;
	struct rig_function *f, *next;

	if (atomic_fetch_sub(&img->refs, 1) != 1)
		return;
	pthread_mutex_lock(&d->mem_lock);
	unload_locked(img);
	pthread_mutex_unlock(&d->mem_lock);
	if (img->placed)
		alloc_put(img->placed);
	for (f = img->fns; f; f = next) {
		next = f->next;
		free(f->name);
		free(f);
	}
	pthread_mutex_destroy(&img->lock);
	free(img);
	device_put(d);
}

/* Put img on d's list. Under d's mem_lock, d seen live. */
static void
list_locked(struct rig_device *d, struct rig_image *img)
{
#ifdef RIG_TEST_HOOKS
	if (image_window)
		image_window();
#endif
	img->next = d->images;
	if (d->images)
		d->images->prev = img;
	d->images = img;
}

/*
 * The driver asked for Device memory: allocate it, let place() fill it.
 * The place, the copy and the list under d's mem_lock, d seen live: the
 * memory and the driver (place locates the region) are d's until its end.
 */
static int
place(struct rig_image *img, const struct rig_code *code)
{
	struct rig_device *d = img->d;
	const void *bytes = NULL;
	size_t n = 0;
	int ret;

	ret = alloc_make(d, code->place_bytes, RIG_MEMORY_DEVICE, &img->placed);
	if (ret < 0) {
		if (code->free_place)
			code->free_place(code->ctx);
		return ret;
	}
	if (code->place_bytes && !img->placed->loc.host) {
		if (code->free_place)
			code->free_place(code->ctx);
		return rig_cause(RIG_EINVAL, "%s asks rig to place code in memory the host does not address",
				 d->name);
	}
	pthread_mutex_lock(&d->mem_lock);
	if ((ret = device_check_live(NULL, d)) < 0) {
		pthread_mutex_unlock(&d->mem_lock);
		if (code->free_place)
			code->free_place(code->ctx);
		return ret;
	}
	callback_enter();
	ret = code->place(code->ctx, img->placed->region, &img->image, &bytes, &n);
	callback_leave();
	if (ret != 0 || n > code->place_bytes) {
		pthread_mutex_unlock(&d->mem_lock);
		return rig_cause(RIG_EINVAL, "the driver's place returned %d for %zu of %llu bytes",
				 ret, n, (unsigned long long)code->place_bytes);
	}
	if (n)
		memcpy(img->placed->loc.host, bytes, n);
	list_locked(d, img);
	pthread_mutex_unlock(&d->mem_lock);
	return 0;
}

/*
 * The driver's load, and a loaded image's list, under d's mem_lock with d
 * seen live, as a borrow's map (borrow.c, try_map): d's end
 * (image_end_all_locked, then the driver handle's release) either finds
 * the image on the list and unloads it, or we find d lost before the
 * driver is asked. An image put on the list after the end would be
 * unloaded through a released driver, or never.
 */
static int
load_locked(struct rig_device *d, const void *bytes, size_t len, struct rig_image *img,
	    struct rig_code *code)
{
	const char *fault = "no reason given";
	int ret;

	if ((ret = device_check_live(NULL, d)) < 0)
		return ret;
	if (!submit_call_enter(&d->sub))
		return device_check_live(NULL, d);
	ret = d->ops->load(d->handle, bytes, len, code, &fault);
	submit_call_leave(&d->sub);
	if (ret != RIG_OK)
		return rig_cause(RIG_EINVAL, "%s refused the code: %s", d->name, fault);
	if (code->loaded) {
		img->image = code->image;
		list_locked(d, img);
	}
	return 0;
}

/* Load the code: 0, img on d's list. */
static int
load(struct rig_device *d, const void *bytes, size_t len, struct rig_image *img)
{
	struct rig_code code = { 0 };
	int ret;

	if (!d->ops->load)
		return rig_cause(RIG_EINVAL, "%s loads no code", d->name);
	pthread_mutex_lock(&d->mem_lock);
	ret = load_locked(d, bytes, len, img, &code);
	pthread_mutex_unlock(&d->mem_lock);
	if (ret < 0 || code.loaded)
		return ret;
	return place(img, &code);
}

int
rig_image_load(struct rig_device *d, const void *bytes, size_t len,
	       struct rig_image **out)
{
	struct rig_image *img;
	int ret;

	if (!d || !out || (!bytes && len))
		return rig_fail(RIG_EINVAL, "the %s is NULL", !d ? "device" : !out ? "out" : "code");
	if ((ptrdiff_t)len < 0)
		return rig_fail(RIG_EINVAL, "%td bytes is negative", (ptrdiff_t)len);
	if ((ret = callback_refuse(__func__)) < 0)
		return ret;
	if (!(img = calloc(1, sizeof(*img))))
		return rig_fail(RIG_ENOMEM, "no memory for the image's handle");
	img->d = d;
	atomic_init(&img->refs, 1);
	pthread_mutex_init(&img->lock, NULL);
	if ((ret = load(d, bytes, len, img)) < 0) {
		if (img->placed)
			alloc_put(img->placed);
		pthread_mutex_destroy(&img->lock);
		free(img);
		return rig_fail_keep(__func__, ret);
	}
	device_get(d);
	*out = img;
	return 0;
}

struct entry_ask {
	struct rig_image *img;
	const char *name;
	struct rig_entry *e;
	uint64_t bytes;			/* what the driver lacked */
};

/*
 * "no function <name>" or "no data object <name>", and what the driver says
 * the image defines instead (ops.absent). Called with the driver's call
 * held, as the ask that answered RIG_ABSENT was.
 */
static int
refuse_absent(const char *func, struct rig_image *img, const char *name, bool data)
{
	struct rig_device *d = img->d;
	char detail[RIG_ABSENT_BYTES] = "";

	if (d->ops->absent) {
		callback_enter();
		d->ops->absent(d->handle, img->image, name, data, detail, sizeof(detail));
		callback_leave();
		detail[sizeof(detail) - 1] = '\0';
	}
	return rig_fail_at(func, RIG_EINVAL, "no %s %s%s%s", data ? "data object" : "function",
			   name, detail[0] ? ": " : "", detail);
}

/* One try of the driver: 0; RIG_ENOMEM for no memory (reclaim_retry()
 * returns released memory and tries again); RIG_EINVAL; RIG_ELOST. */
static int
try_entry(void *arg)
{
	struct entry_ask *q = arg;
	struct rig_device *d = q->img->d;
	int r;

	if (!submit_call_enter(&d->sub))
		return device_check_live("rig_image_function", d);
	r = d->ops->entry(d->handle, q->img->image, q->name, q->e, &q->bytes);
	if (r == RIG_ABSENT)
		r = refuse_absent("rig_image_function", q->img, q->name, false);
	submit_call_leave(&d->sub);
	if (r == RIG_ENTRY)
		return 0;
	return r < 0 ? r : RIG_ENOMEM;
}

/* Ask the driver for name, returning released memory while it has none. */
static int
ask_entry(struct rig_image *img, const char *name, struct rig_entry *e)
{
	struct entry_ask q = { img, name, e, 0 };
	int ret;

	if (!img->d->ops->entry)
		return rig_fail_at("rig_image_function", RIG_EINVAL, "%s names no functions",
				   img->d->name);
	if ((ret = reclaim_retry(img->d, try_entry, &q)) != RIG_ENOMEM)
		return ret;
	return rig_fail_at("rig_image_function", RIG_ENOMEM,
			   "%s has no memory for the %llu bytes %s's launches need",
			   img->d->name, (unsigned long long)q.bytes, name);
}

int
rig_image_function(struct rig_image *img, const char *name,
		   struct rig_function **out)
{
	struct rig_function *f;
	int ret = 0;

	if (!img || !name || !out)
		return rig_fail(RIG_EINVAL, "the %s is NULL", !img ? "image" : !name ? "name" : "out");
	if ((ret = device_check_live(__func__, img->d)) < 0)
		return ret;
	pthread_mutex_lock(&img->lock);
	for (f = img->fns; f && strcmp(f->name, name); f = f->next)
		;
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f || !(f->name = strdup(name))) {
			free(f);
			f = NULL;
			ret = rig_fail(RIG_ENOMEM, "no memory for the function's handle");
		} else if ((ret = ask_entry(img, name, &f->entry)) < 0) {
			free(f->name);
			free(f);
			f = NULL;
		} else {
			f->img = img;
			f->next = img->fns;
			img->fns = f;
		}
	}
	pthread_mutex_unlock(&img->lock);
	if (f)
		*out = f;
	return ret;
}

/* The driver's answer for a global: 0, or a refusal recorded for func. */
static int
ask_symbol(struct rig_image *img, const char *name, void **host, uint64_t *bytes)
{
	struct rig_device *d = img->d;
	int r;

	if (!submit_call_enter(&d->sub))
		return device_check_live("rig_image_symbol", d);
	r = d->ops->symbol(d->handle, img->image, name, host, bytes);
	if (r == RIG_ABSENT)
		r = refuse_absent("rig_image_symbol", img, name, true);
	submit_call_leave(&d->sub);
	if (r == RIG_SYMBOL)
		return 0;
	if (r == RIG_CODE_NAME)
		return rig_fail_at("rig_image_symbol", RIG_EINVAL,
				   "%s is a function, not a data object (rig_image_function() names it)",
				   name);
	if (r < 0)
		return r;
	return rig_fail_at("rig_image_symbol", RIG_EINVAL, "the driver's symbol answered %d", r);
}

int
rig_image_symbol(struct rig_image *img, const char *name, void **host,
		 size_t *bytes)
{
	void *at = NULL;
	uint64_t n = 0;
	int ret;

	if (!img || !name || !host || !bytes)
		return rig_fail(RIG_EINVAL, "the %s is NULL",
				!img ? "image" : !name ? "name" : !host ? "host" : "bytes");
	if ((ret = callback_refuse(__func__)) < 0)
		return ret;
	if ((ret = device_check_live(__func__, img->d)) < 0)
		return ret;
	if (!img->d->ops->symbol)
		return rig_fail(RIG_EINVAL, "%s's globals are not addressed by the host",
				img->d->name);
	if ((ret = ask_symbol(img, name, &at, &n)) < 0)
		return ret;
	*host = at;
	*bytes = (size_t)n;
	return 0;
}

void
rig_image_release(struct rig_image *img)
{
	if (img)
		image_put(img);
}
