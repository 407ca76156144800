// SPDX-License-Identifier: GPL-2.0
/*
 * jw_main.c - the untorn_jw module: the misc device /dev/untorn_jw and its
 * ioctls (untorn_jw_uapi.h).  UNTORN_JW_IOC_WRITE copies the caller's
 * iovecs into a kernel buffer, takes the file by descriptor and hands both
 * to jw_write() (jw_write.c), which writes them in one jbd2 transaction.
 *
 * The device is open to everyone (0666): a write goes only to a file the
 * caller already has open for writing, with the checks of write(2).
 */
#include <linux/file.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "jw.h"
#include "untorn_jw_uapi.h"

static long jw_ioc_info(void __user *argp)
{
	struct untorn_jw_info info = {
		.version = UNTORN_JW_VERSION,
		.max_bytes = UNTORN_JW_MAX_BYTES,
		.credits_per_page = jw_credits_per_page(1),
	};

	return copy_to_user(argp, &info, sizeof(info)) ? -EFAULT : 0;
}

/* the caller's bytes, copied before any lock: no page fault under the handle */
static void *jw_copy_in(const struct untorn_jw_write *req, size_t *len)
{
	struct iovec iovstack[UIO_FASTIOV], *iov = iovstack;
	struct iov_iter iter;
	void *buf;
	ssize_t ret;

	ret = import_iovec(ITER_SOURCE, u64_to_user_ptr(req->iov), req->iovcnt,
			   UIO_FASTIOV, &iov, &iter);
	if (ret < 0)
		return ERR_PTR(ret);
	*len = ret;
	if (*len == 0) {
		buf = ERR_PTR(-EINVAL);
		goto out_free_iov;
	}
	if (*len > UNTORN_JW_MAX_BYTES) {
		buf = ERR_PTR(-E2BIG);
		goto out_free_iov;
	}
	buf = kvmalloc(*len, GFP_KERNEL);
	if (!buf) {
		buf = ERR_PTR(-ENOMEM);
		goto out_free_iov;
	}
	if (copy_from_iter(buf, *len, &iter) != *len) {
		kvfree(buf);
		buf = ERR_PTR(-EFAULT);
	}
out_free_iov:
	kfree(iov);
	return buf;
}

static long jw_ioc_write(void __user *argp)
{
	struct untorn_jw_write req;
	struct jw_result res = {};
	struct iov_iter from;
	struct file *file;
	struct kvec kv;
	ssize_t ret;
	void *buf;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	if (req.flags & ~UNTORN_JW_DSYNC || req.reserved)
		return -EINVAL;
	if ((loff_t)req.offset < 0)
		return -EINVAL;
	buf = jw_copy_in(&req, &kv.iov_len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	kv.iov_base = buf;
	iov_iter_kvec(&from, ITER_SOURCE, &kv, 1, kv.iov_len);
	file = fget(req.fd);
	if (!file) {
		ret = -EBADF;
		goto out_free_buf;
	}
	ret = jw_check_file(file);
	if (ret)
		goto out_put_file;
	ret = jw_write(file, req.offset, &from, req.flags & UNTORN_JW_DSYNC,
		       &res);
	if (ret < 0)
		goto out_put_file;
	req.written = ret;
	req.credits = res.credits;
	req.tid = res.tid;
	ret = copy_to_user(argp, &req, sizeof(req)) ? -EFAULT : 0;
out_put_file:
	fput(file);
out_free_buf:
	kvfree(buf);
	return ret;
}

static long jw_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case UNTORN_JW_IOC_INFO:
		return jw_ioc_info(argp);
	case UNTORN_JW_IOC_WRITE:
		return jw_ioc_write(argp);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations jw_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = jw_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice jw_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "untorn_jw",
	.fops = &jw_fops,
	.mode = 0666,
};

static int __init jw_init(void)
{
	return misc_register(&jw_miscdev);
}

static void __exit jw_exit(void)
{
	misc_deregister(&jw_miscdev);
}

module_init(jw_init);
module_exit(jw_exit);
MODULE_DESCRIPTION(
	"untorn_jw: multi-page writes in one jbd2 transaction on ext4 data=journal");
MODULE_AUTHOR("the untorn authors");
MODULE_LICENSE("GPL");
