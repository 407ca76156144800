// SPDX-License-Identifier: GPL-2.0
/*
 * jw_write.c - untorn_jw's write path: a buffered write of up to 64 KiB on an
 * ext4 data=journal file whose blocks all join one jbd2 transaction.
 *
 * ext4 starts one handle per page in ->write_begin() and stops it in
 * ->write_end(); a commit between two pages splits a multi-page write.  Here
 * one outer handle, with the credits of all the pages, is held across the
 * page loop: ext4's per-page starts then nest in it (jbd2 counts h_ref, no
 * new transaction), so the commit cannot happen in the middle.
 *
 * Lock order, as ext4's buffered write (fs/ext4/super.c): sb_start_write,
 * i_rwsem, transaction start, page lock.  Nothing in the loop may wait for a
 * commit or for writeback: the user's bytes are copied into a kernel buffer
 * before any lock (no page fault under the handle), dirty throttling and
 * fsync come after the handle is stopped, and writes past i_size are refused
 * (their failure path truncates, which restarts the handle).
 *
 * ext4 exports nothing: the journal is taken from the handle ext4 itself
 * opens in a first ->write_begin() (finished with ->write_end() of 0 bytes),
 * and data=journal is recognised by its ->write_end, ext4_journalled_write_end.
 * See docs/kmod-internals.md.
 */
#include <linux/fs.h>
#include <linux/fileattr.h>
#include <linux/jbd2.h>
#include <linux/kallsyms.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/uio.h>
#include <linux/version.h>
#include <linux/writeback.h>

#include "jw.h"

/* ext4's handle type for page writes (EXT4_HT_WRITE_PAGE), shown by tracepoints */
#define JW_HANDLE_TYPE 2
/* jbd2_handle_stats' line_no for the module's handles, to tell them apart */
#define JW_HANDLE_LINE 0x7a77

/*
 * Credits a page may use: what ext4's write_begin reserves for one page
 * (ext4_writepage_trans_blocks() + 1: the extent index and leaf path, the
 * bitmap and group descriptor blocks, the inode, the superblock, quota, the
 * data blocks) bounded without ext4's private superblock: 3 per block plus 55.
 */
unsigned int jw_credits_per_page(unsigned int blocks_per_page)
{
	return 3 * blocks_per_page + 56;
}

/* "%ps" names a module's function "ext4_journalled_write_end [ext4]" */
static bool jw_is_journalled_data(struct address_space *mapping)
{
	static const char want[] = "ext4_journalled_write_end";
	char name[KSYM_SYMBOL_LEN];

	snprintf(name, sizeof(name), "%ps", mapping->a_ops->write_end);
	return strncmp(name, want, sizeof(want) - 1) == 0 &&
	       (name[sizeof(want) - 1] == '\0' ||
		name[sizeof(want) - 1] == ' ');
}

/* checks that need no lock */
int jw_check_file(struct file *file)
{
	struct inode *inode = file_inode(file);

	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!S_ISREG(inode->i_mode))
		return -EINVAL;
	if (inode->i_sb->s_magic != EXT4_SUPER_MAGIC)
		return -EOPNOTSUPP;
	if (file->f_flags & O_APPEND)
		return -EINVAL;
	if (IS_DAX(inode) || IS_ENCRYPTED(inode) || IS_VERITY(inode))
		return -EOPNOTSUPP;
	return 0;
}

/* the inode's attribute flags: struct fileattr is file_kattr from 6.17 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
typedef struct file_kattr jw_fileattr_t;
#else
typedef struct fileattr jw_fileattr_t;
#endif

/* checks under i_rwsem: data=journal and the size can change only under it */
static int jw_check_locked(struct file *file, loff_t pos, size_t len)
{
	struct inode *inode = file_inode(file);
	jw_fileattr_t fa = {};
	int ret;

	if (!jw_is_journalled_data(file->f_mapping))
		return -EOPNOTSUPP;
	if (sb_rdonly(inode->i_sb))
		return -EROFS;
	ret = vfs_fileattr_get(file->f_path.dentry, &fa);
	if (ret)
		return ret;
	if (fa.flags &
	    (FS_INLINE_DATA_FL | FS_ENCRYPT_FL | FS_VERITY_FL | FS_DAX_FL))
		return -EOPNOTSUPP;
	if (pos + len > i_size_read(inode))
		return -ERANGE;
	return 0;
}

/*
 * The page cache's unit in ->write_begin/->write_end: a folio from 6.12
 * (1da86618bdce, a225800f322a), a page before.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
typedef struct folio jw_cache_t;

static size_t jw_copy_in(struct folio *folio, loff_t pos, size_t bytes,
			 struct iov_iter *from)
{
	return copy_folio_from_iter_atomic(folio, offset_in_folio(folio, pos),
					   bytes, from);
}
#define jw_flush_dcache flush_dcache_folio
#else
typedef struct page jw_cache_t;

static size_t jw_copy_in(struct page *page, loff_t pos, size_t bytes,
			 struct iov_iter *from)
{
	return copy_page_from_iter_atomic(page, offset_in_page(pos), bytes,
					  from);
}
#define jw_flush_dcache flush_dcache_page
#endif

/*
 * ->write_begin and ->write_end take the write's kiocb from 6.17, the file
 * before: a synchronous one for the file, at the page's position.
 */
static int jw_begin(struct file *file, loff_t pos, size_t bytes,
		    jw_cache_t **pc, void **fsdata)
{
	struct address_space *mapping = file->f_mapping;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
	struct kiocb iocb;

	init_sync_kiocb(&iocb, file);
	iocb.ki_pos = pos;
	return mapping->a_ops->write_begin(&iocb, mapping, pos, bytes, pc,
					   fsdata);
#else
	return mapping->a_ops->write_begin(file, mapping, pos, bytes, pc,
					   fsdata);
#endif
}

static int jw_end(struct file *file, loff_t pos, size_t bytes, size_t copied,
		  jw_cache_t *pc, void *fsdata)
{
	struct address_space *mapping = file->f_mapping;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
	struct kiocb iocb;

	init_sync_kiocb(&iocb, file);
	iocb.ki_pos = pos;
	return mapping->a_ops->write_end(&iocb, mapping, pos, bytes, copied, pc,
					 fsdata);
#else
	return mapping->a_ops->write_end(file, mapping, pos, bytes, copied, pc,
					 fsdata);
#endif
}

/* one page: ->write_begin (a nested handle), copy, ->write_end */
static int jw_write_page(struct file *file, loff_t pos, size_t bytes,
			 struct iov_iter *from)
{
	struct address_space *mapping = file->f_mapping;
	jw_cache_t *pc;
	void *fsdata = NULL;
	size_t copied;
	int ret;

	ret = jw_begin(file, pos, bytes, &pc, &fsdata);
	if (ret)
		return ret;
	if (mapping_writably_mapped(mapping))
		jw_flush_dcache(pc);
	copied = jw_copy_in(pc, pos, bytes, from);
	jw_flush_dcache(pc);
	ret = jw_end(file, pos, bytes, copied, pc, fsdata);
	if (ret >= 0 && ret < copied)
		iov_iter_revert(from, copied - ret);
	return ret;
}

/* a page written with 0 bytes copied: ext4 opens and closes its handle */
static int jw_touch_page(struct file *file, loff_t pos, size_t bytes,
			 journal_t **journal)
{
	handle_t *handle;
	jw_cache_t *pc;
	void *fsdata = NULL;
	int ret;

	ret = jw_begin(file, pos, bytes, &pc, &fsdata);
	if (ret)
		return ret;
	handle = journal_current_handle();
	*journal = handle && handle->h_transaction ?
			   handle->h_transaction->t_journal :
			   NULL;
	ret = jw_end(file, pos, bytes, 0, pc, fsdata);
	return ret < 0 ? ret : 0;
}

static size_t jw_first_page_bytes(loff_t pos, size_t len)
{
	return min_t(size_t, PAGE_SIZE - offset_in_page(pos), len);
}

/* the journal of the file's filesystem, from the handle ext4 opens for a page */
static int jw_journal_of(struct file *file, loff_t pos, size_t len,
			 journal_t **journal)
{
	int ret;

	*journal = NULL;
	ret = jw_touch_page(file, pos, jw_first_page_bytes(pos, len), journal);
	if (ret)
		return ret;
	if (!*journal || (*journal)->j_private != file_inode(file)->i_sb)
		return -EOPNOTSUPP;
	return 0;
}

static unsigned int jw_pages(loff_t pos, size_t len)
{
	return (offset_in_page(pos) + len + PAGE_SIZE - 1) >> PAGE_SHIFT;
}

/* the credits for the whole write, or -E2BIG past half a transaction */
static int jw_credits(struct inode *inode, journal_t *journal, loff_t pos,
		      size_t len)
{
	unsigned int bpp = PAGE_SIZE >> inode->i_blkbits;
	unsigned int credits = jw_pages(pos, len) * jw_credits_per_page(bpp);

	/*
	 * Half the transaction: Linux 6.1's jbd2 loops forever on a handle
	 * close to the maximum (fixed in 6.11, 27ba5b67312a), and other
	 * writers need room too.
	 */
	if (credits > journal->j_max_transaction_buffers / 2)
		return -E2BIG;
	return credits;
}

/* the page loop under one handle; the bytes written, or -errno if none */
static ssize_t jw_write_pages(struct file *file, loff_t pos,
			      struct iov_iter *from)
{
	ssize_t written = 0;
	int ret = 0;

	while (iov_iter_count(from)) {
		size_t bytes = jw_first_page_bytes(pos, iov_iter_count(from));

		ret = jw_write_page(file, pos, bytes, from);
		if (ret <= 0)
			break;
		pos += ret;
		written += ret;
		if (ret < bytes)
			break;
	}
	return written ? written : (ret < 0 ? ret : -EIO);
}

/* the locked part: checks, the journal, one handle around the page loop */
static ssize_t jw_write_locked(struct file *file, struct kiocb *kiocb,
			       struct iov_iter *from, struct jw_result *res)
{
	struct inode *inode = file_inode(file);
	size_t len = iov_iter_count(from);
	journal_t *journal;
	handle_t *handle;
	ssize_t written;
	int ret;

	ret = generic_write_checks(kiocb, from);
	if (ret <= 0)
		return ret ? ret : -EINVAL;
	if (iov_iter_count(from) != len)
		return -EFBIG;
	inode_dio_wait(inode);
	ret = jw_check_locked(file, kiocb->ki_pos, len);
	if (ret)
		return ret;
	ret = file_modified(file);
	if (ret)
		return ret;
	ret = jw_journal_of(file, kiocb->ki_pos, len, &journal);
	if (ret)
		return ret;
	if (is_journal_aborted(journal))
		return -EIO;
	ret = jw_credits(inode, journal, kiocb->ki_pos, len);
	if (ret < 0)
		return ret;
	res->credits = ret;
	handle = jbd2__journal_start(journal, res->credits, 0, 0, GFP_NOFS,
				     JW_HANDLE_TYPE, JW_HANDLE_LINE);
	if (IS_ERR(handle))
		return PTR_ERR(handle);
	written = jw_write_pages(file, kiocb->ki_pos, from);
	if (handle->h_transaction)
		res->tid = handle->h_transaction->t_tid;
	ret = jbd2_journal_stop(handle);
	if (written < 0)
		return written;
	kiocb->ki_pos += written;
	return ret ? ret : written;
}

/*
 * Write the bytes of @from at @pos of @file in one jbd2 transaction.  The
 * file passed jw_check_file().  Returns the bytes written or -errno.
 */
ssize_t jw_write(struct file *file, loff_t pos, struct iov_iter *from,
		 bool dsync, struct jw_result *res)
{
	struct inode *inode = file_inode(file);
	size_t len = iov_iter_count(from);
	struct kiocb kiocb;
	ssize_t written;
	int ret;

	ret = rw_verify_area(WRITE, file, &pos, len);
	if (ret)
		return ret;
	init_sync_kiocb(&kiocb, file);
	kiocb.ki_pos = pos;
	file_start_write(file);
	inode_lock(inode);
	written = jw_write_locked(file, &kiocb, from, res);
	inode_unlock(inode);
	if (written > 0)
		balance_dirty_pages_ratelimited(file->f_mapping);
	file_end_write(file);
	if (written > 0 && (dsync || (kiocb.ki_flags & IOCB_DSYNC))) {
		ret = vfs_fsync_range(file, pos, pos + written - 1, 1);
		if (ret)
			return ret;
	}
	return written;
}
