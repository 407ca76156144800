/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jw.h - what untorn_jw's device file (jw_main.c) needs from its write path
 * (jw_write.c).
 */
#ifndef JW_H
#define JW_H

#include <linux/fs.h>
#include <linux/uio.h>

struct jw_result {
	unsigned int credits; /* jbd2 credits reserved */
	unsigned int tid; /* the transaction the write joined */
};

unsigned int jw_credits_per_page(unsigned int blocks_per_page);
int jw_check_file(struct file *file);
ssize_t jw_write(struct file *file, loff_t pos, struct iov_iter *from,
		 bool dsync, struct jw_result *res);

#endif /* JW_H */
