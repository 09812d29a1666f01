/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_TSAN_H_
#define _REFNIC_TSAN_H_

/*
 * The order EAL's interrupt thread gives, told to ThreadSanitizer.
 *
 * EAL runs the port's event callback and its alarms (doorbell check,
 * recovery, reset event) on its interrupt thread, and promises that
 * rte_intr_callback_unregister() and rte_eal_alarm_cancel() return only
 * once no run is under way, and that a run starts after the register or
 * set that asked for it. The locks and flags behind those promises are in
 * Debian's librte_eal, which is not instrumented: ThreadSanitizer sees the
 * callback's accesses and the close that frees what they touched as a race.
 * In a TSan build (devtools/test.sh, build-tsan) these marks state the
 * promise on the port's struct rte_eth_dev (a callback knows its address
 * before it reads anything of the port: the adapter's address is itself
 * read from the port's data, which a probe writes): a run begins with an
 * acquire and ends with a release, a register or set releases, an
 * unregister or cancel acquires. They compile to nothing otherwise.
 */

#if defined(__SANITIZE_THREAD__)
#define REFNIC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define REFNIC_TSAN 1
#endif
#endif

#ifdef REFNIC_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define REFNIC_EAL_SYNC_ACQUIRE(obj)	__tsan_acquire((void *)(obj))
#define REFNIC_EAL_SYNC_RELEASE(obj)	__tsan_release((void *)(obj))
#else
#define REFNIC_EAL_SYNC_ACQUIRE(obj)	do { } while (0)
#define REFNIC_EAL_SYNC_RELEASE(obj)	do { } while (0)
#endif

#endif /* _REFNIC_TSAN_H_ */
