/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_H_
#define _REFNIC_H_

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <ethdev_driver.h>
#include <rte_ether.h>
#include <rte_memzone.h>
#include <rte_spinlock.h>

#include "refnic_bar.h"
#include "refnic_compat.h"
#include "refnic_devargs.h"
#include "refnic_logs.h"
#include "refnic_rxtx.h"	/* struct refnic_queue_stats, which the adapter carries */

#define REFNIC_DRIVER_NAME		net_refnic
#define REFNIC_ADMIN_DEPTH		16	/* commands are issued one at a time */
#define REFNIC_ADMIN_BUF_SIZE		8192	/* DMA buffer for command data */
#define REFNIC_DEFAULT_RING_SIZE	512
#define REFNIC_DEFAULT_BURST		32
#define REFNIC_DEFAULT_RX_FREE_THRESH	32
#define REFNIC_DEFAULT_TX_FREE_THRESH	32
#define REFNIC_RX_CKSUM_OFFLOADS	(RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | \
					 RTE_ETH_RX_OFFLOAD_TCP_CKSUM | \
					 RTE_ETH_RX_OFFLOAD_UDP_CKSUM)

/* Driver-side admin counters (xstats admin_*, telemetry /refnic/port). */
struct refnic_admin_stats {
	uint64_t commands;
	uint64_t polls;
	uint64_t wait_us;
	uint64_t timeouts;		/* waits that hit the deadline */
};

struct refnic_admin {
	pthread_mutex_t lock;		/* one command in flight */
	const struct rte_memzone *mz;	/* sq, cq and the data buffer */
	struct refnic_admin_cmd *sq;
	struct refnic_admin_cpl *cq;
	void *buf;			/* command data, REFNIC_ADMIN_BUF_SIZE */
	rte_iova_t buf_iova;
	uint16_t tail;			/* next slot; completion lands there too */
	uint8_t phase;			/* expected completion phase */
	uint16_t next_cmd_id;
	uint32_t timeout_us;		/* advertised by the device, clamped */
	bool due_known;			/* backoff on a REFNIC_CAP_ADMIN_DUE device */
	struct refnic_poll_policy policy;
	struct refnic_admin_stats stats;
};

/* The async event ring (device writes, driver reads in the interrupt thread). */
struct refnic_aeq {
	rte_spinlock_t lock;		/* handler vs. set-up after a reset */
	const struct rte_memzone *mz;
	struct refnic_event *ring;
	uint16_t head;
	uint8_t phase;
};

/* Interrupt moderation of one cause of a queue pair's vector. */
struct refnic_itr_cause {
	uint32_t us;			/* interval programmed now */
	bool adaptive;
	uint8_t dim_level;
	uint64_t dim_tsc;		/* start of the current sample; 0: none yet */
	uint64_t dim_packets;
};

struct refnic_queue_itr {
	rte_spinlock_t lock;		/* the API's thread vs. the sleeping lcore */
	struct refnic_itr_cause rx;
	struct refnic_itr_cause tx;
};

/* One queue as the doorbell check last saw it (refnic_doorbell.c). */
struct refnic_db_queue {
	uint32_t starts;		/* the queue's starts then: a restart resets */
	/* At the first sighting: packets the queue had sent (TX) or received
	 * (RX), which never wrap, and its ring indexes, which do: the same
	 * indexes a ring lap later are not the same stall. */
	uint64_t packets;
	uint16_t tail;			/* posted up to here ... */
	uint16_t done;			/* ... done up to here */
	bool suspect;			/* posted work and no progress since then */
	bool rung;			/* re-rung for this very sighting */
	bool status_read;		/* and still stalled a check later */
	uint64_t recoveries;		/* re-rings */
};

/* The missed-doorbell check: one EAL alarm per port, never one per queue. */
struct refnic_db_check {
	bool enabled;			/* decided at init: devarg and erratum */
	bool admin_rering;		/* the admin wait re-rings: erratum or check */
	bool running;			/* alarm armed; cleared to stop it */
	/* A queue's check, and that queue's start or stop (rte_eth_dev_*_queue_
	 * start/stop, another thread): a restart rewrites what the check reads. */
	rte_spinlock_t queue_lock;
	uint32_t deadline_us;		/* a stall is re-rung within this */
	uint64_t checks;		/* alarm runs */
	uint64_t admin_rerings;		/* AQ_TAIL written again */
	uint64_t admin_next_tsc;	/* next admin re-ring, while waiting */
	struct refnic_db_queue txq[REFNIC_MAX_QUEUES];
	struct refnic_db_queue rxq[REFNIC_MAX_QUEUES];
	struct {			/* counts at the last xstats reset */
		uint64_t checks, admin_rerings;
		uint64_t txq[REFNIC_MAX_QUEUES], rxq[REFNIC_MAX_QUEUES];
	} base;
};

/*
 * rte_flow rules (refnic_flow.c), kept by the driver: the device forgets
 * its flow table at every reset, and the next start programs them again.
 */
struct rte_flow;
struct refnic_flows {
	pthread_mutex_t lock;		/* rte_flow calls vs. a recovery's start */
	TAILQ_HEAD(, rte_flow) list;	/* in creation order, as replayed */
	uint32_t nb;			/* rules in list */
	uint64_t slots[REFNIC_MAX_FLOWS / 64];	/* device slots taken */
	bool synced;			/* the device holds the list ... */
	uint32_t synced_gen;		/* ... since the reset of this RESET_GEN */
	bool isolated;			/* rte_flow_isolate(): a catch-all drop */
	uint32_t isolate_slot;
};

struct refnic_bus_ops;

struct refnic_adapter {
	struct refnic_bar hw;
	struct refnic_devargs args;
	const struct refnic_bus_ops *bus;
	void *bus_priv;

	struct refnic_admin admin;
	struct refnic_admin_stats reset_stats;	/* waits for the device to reset */
	struct refnic_aeq aeq;
	bool events_registered;		/* vector 0 handler in the interrupt thread */
	struct refnic_queue_itr itr[REFNIC_MAX_QUEUES];
	struct refnic_db_check db;
	/* Set when the device stopped answering: later calls fail fast until
	 * rte_eth_dev_reset() brings the port back. Atomic: set by a burst or
	 * an alarm, cleared by a recovery, read by any control thread
	 * (refnic_port_failed()). */
	bool failed;
	bool reset_event_sent;		/* this failure was reported */
	bool recovering;		/* proactive recovery under way */
	/* dev_started, for the interrupt thread and the bursts: ethdev's is a
	 * bitfield sharing its byte with flags control calls rewrite (such as
	 * scattered_rx at start), so reading it from another thread races
	 * (ThreadSanitizer). Atomic; set and cleared with dev_started. */
	bool started;
	/* What failed and what came of it, across recoveries (xstats). */
	struct {
		uint64_t queue_errors;		/* queues stopped: bad completions, device */
		uint64_t recoveries;		/* RTE_ETH_EVENT_RECOVERY_SUCCESS */
		uint64_t recovery_failures;	/* RTE_ETH_EVENT_RECOVERY_FAILED */
		uint64_t reset_requests;	/* RTE_ETH_EVENT_INTR_RESET */
		uint64_t reply_errors;		/* admin reply fields refused or clamped */
	} failure_stats;
	uint16_t port_id;
	/* Set when even a reset did not quiet the device: queue buffers stay
	 * allocated (it may still write them) until a reset succeeds. */
	bool dma_unsafe;
	/* rte_eth_dev_set_link_down(): kept until set_link_up, applied again
	 * at each start (a device reset turns the PHY back on). */
	bool link_down_requested;
	/* rte_eth_dev_set_ptypes(): the packet type layers reported; every
	 * RX queue, set up before or after, takes it (refnic_ptypes_set). */
	uint32_t ptype_mask;

	/* The clock's latch and the PTP latches: one reader at a time, of any
	 * process (refnic_timesync.c). timesync: the application turned it on;
	 * a start after a device reset turns it on again. */
	rte_spinlock_t clock_lock;
	bool timesync;

	struct refnic_identify ident;	/* validated copy */

	struct refnic_rss_config rss;	/* what RSS_SET sends at start */
	struct refnic_flows flows;
	/* The multicast list, which only the PMD keeps: sent again at start. */
	struct rte_ether_addr mc_addrs[REFNIC_MAX_MC_FILTERS];
	uint32_t nb_mc_addrs;

	/* Device counters at the last xstats/stats reset (kept across
	 * recoveries and resets), and the last fetched; stats, xstats and
	 * telemetry readers fetch and read under stats_lock, so that none sees
	 * another's half-written copy. */
	pthread_mutex_t stats_lock;
	struct refnic_hw_stats hw_stats_base;
	struct refnic_hw_stats hw_stats;
	/* What released queues counted since the last stats reset, by queue
	 * id, until a queue set up with that id takes it on (refnic_stats.c);
	 * under stats_lock. */
	struct refnic_queue_stats rxq_carry[REFNIC_MAX_QUEUES];
	struct refnic_queue_stats txq_carry[REFNIC_MAX_QUEUES];
};

/* What the bus side of probe provides, like ionic's thin bus layers. */
struct refnic_bus_ops {
	/* Drops the bus's hold on the device after the port is closed. */
	void (*release)(struct refnic_adapter *adapter);
};

static inline struct refnic_adapter *
refnic_adapter(const struct rte_eth_dev *dev)
{
	return dev->data->dev_private;
}

/* Does the device hand out its counters (STATS_GET)? Else the port's own. */
static inline bool
refnic_has_hw_stats(const struct refnic_adapter *ad)
{
	return ad->ident.caps & REFNIC_CAP_STATS_DMA;
}

/* Has the port failed (refnic_adapter.failed)? From any thread. */
static inline bool
refnic_port_failed(const struct refnic_adapter *ad)
{
	return __atomic_load_n(&ad->failed, __ATOMIC_ACQUIRE);
}

/* The primary address plus the device's extra unicast filters. */
static inline uint32_t
refnic_max_mac_addrs(const struct refnic_adapter *ad)
{
	return 1 + RTE_MIN(ad->ident.max_mac_filters, REFNIC_MAX_MAC_FILTERS);
}

/* refnic_ethdev.c */
int refnic_ethdev_init(struct rte_eth_dev *dev, const struct refnic_bar *hw,
		       const struct refnic_devargs *args,
		       const struct refnic_bus_ops *bus, void *bus_priv);
int refnic_quiesce(struct rte_eth_dev *dev);

/* A secondary process's side of a port (process_private). */
struct refnic_secondary {
	struct refnic_bar hw;		/* this process's register access */
	void (*release)(struct refnic_bar *hw);	/* the bus glue's, at close */
};
/* refnic_secondary.c: a secondary process's port. Takes sec (malloc'd),
 * freed at close. */
int refnic_secondary_init(struct rte_eth_dev *dev, struct refnic_secondary *sec);
/* In a secondary: the primary closes the port; this process lets go of it. */
void refnic_secondary_port_gone(struct rte_eth_dev *dev);
bool refnic_secondary_is_port(const struct rte_eth_dev *dev);
/* -E_RTE_SECONDARY, with one line saying WHAT is the primary's. */
int refnic_secondary_refuse(struct rte_eth_dev *dev, const char *what);

/* refnic_ethdev.c: the ops a secondary's port shares with the primary's. */
void refnic_set_burst_functions(struct rte_eth_dev *dev);
int refnic_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info);
const uint32_t *refnic_ptypes(struct rte_eth_dev *dev, size_t *len);
int refnic_link_update(struct rte_eth_dev *dev, int wait_to_complete);
int refnic_fw_version_get(struct rte_eth_dev *dev, char *fw_version, size_t fw_size);
int refnic_get_reg(struct rte_eth_dev *dev, struct rte_dev_reg_info *regs);

/* How long a burst already inside the PMD is given to leave it, once the
 * bursts were switched to ethdev's dummies (recovery, a primary's close). */
#define REFNIC_BURST_GRACE_MS	10

/* refnic_admin.c */
int refnic_admin_init(struct refnic_adapter *ad);
void refnic_admin_fini(struct refnic_adapter *ad);
int refnic_hw_reset(struct refnic_adapter *ad);
int refnic_admin_exec(struct refnic_adapter *ad, struct refnic_admin_cmd *cmd,
		      uint32_t *result);
int refnic_admin_exec_buf(struct refnic_adapter *ad, struct refnic_admin_cmd *cmd,
			  void *data, uint32_t len, bool to_device);
int refnic_admin_status_to_errno(uint16_t status);
int refnic_fetch_hw_stats(struct refnic_adapter *ad);
int refnic_fetch_hw_stats_baseline(struct refnic_adapter *ad);
/* The admin queue's and the resets' counters, or zero them: under the admin
 * lock, which commands and a recovery's reset hold. */
void refnic_admin_stats_read(struct refnic_adapter *ad, struct refnic_admin_stats *admin,
			     struct refnic_admin_stats *reset);
void refnic_admin_stats_clear(struct refnic_adapter *ad);

/* refnic_reply.c: admin reply buffers checked (one line and counted each) */
int refnic_identify_check(struct refnic_adapter *ad, struct refnic_identify *id);
int refnic_stats_check(struct refnic_adapter *ad, const struct refnic_hw_stats *s,
		       const struct refnic_hw_stats *since);
void refnic_reply_error(struct refnic_adapter *ad, const char *cmd, const char *what);

/* refnic_rss.c */
uint64_t refnic_rss_offloads(void);
uint32_t refnic_rss_hf_to_hw(uint64_t rss_hf);
int refnic_rss_configure(struct rte_eth_dev *dev);
int refnic_rss_start(struct rte_eth_dev *dev);
int refnic_rss_hash_update(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf);
int refnic_rss_hash_conf_get(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf);
int refnic_reta_update(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *reta,
		       uint16_t reta_size);
int refnic_reta_query(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *reta,
		      uint16_t reta_size);

/* refnic_filter.c */
int refnic_mac_addr_add(struct rte_eth_dev *dev, struct rte_ether_addr *mac,
			uint32_t index, uint32_t pool);
void refnic_mac_addr_remove(struct rte_eth_dev *dev, uint32_t index);
int refnic_set_mc_addr_list(struct rte_eth_dev *dev, struct rte_ether_addr *mc_addrs,
			    uint32_t nb_mc_addrs);
int refnic_vlan_filter_set(struct rte_eth_dev *dev, uint16_t vlan_id, int on);
int refnic_vlan_offload_set(struct rte_eth_dev *dev, int mask);
int refnic_features_apply(struct rte_eth_dev *dev);

/* refnic_failure.c: a failure, reported once, from any thread: recovered
 * by the PMD on a started port, RTE_ETH_EVENT_INTR_RESET otherwise */
void refnic_reset_needed(struct refnic_adapter *ad, const char *why);
void refnic_port_fail(struct refnic_adapter *ad, const char *why);
/* A queue stopped on an error (counted): the same as refnic_reset_needed(). */
void refnic_queue_failed(struct refnic_adapter *ad, const char *why);
void refnic_reset_event_clear(struct refnic_adapter *ad);
/* dev_stop: a recovery under way ends first; one not begun becomes INTR_RESET. */
void refnic_recovery_wait(struct refnic_adapter *ad);
/* The primary takes failures its secondaries found (once per process). */
void refnic_failure_listen(void);
/* refnic_ethdev.c: the device reset and the port's configuration restored.
 * What a recovery brings back, taken once before its first attempt: a
 * failed attempt's own queue stops must not pass for the app's. */
struct refnic_recovery_state {
	uint8_t rx_state[RTE_MAX_QUEUES_PER_PORT];
	uint8_t tx_state[RTE_MAX_QUEUES_PER_PORT];
};
void refnic_recovery_state_save(struct rte_eth_dev *dev, struct refnic_recovery_state *st);
int refnic_dev_recover(struct rte_eth_dev *dev, const struct refnic_recovery_state *st);
/* refnic_filter.c: what the device forgets at a reset and ethdev does not
 * restore at a start (multicast list, VLAN table); MACs for a recovery. */
int refnic_filters_restore(struct rte_eth_dev *dev);
int refnic_macs_restore(struct rte_eth_dev *dev);

/* refnic_flow.c: rte_flow */
void refnic_flow_fini(struct rte_eth_dev *dev);
/* dev_start: the rules again, if the device was reset since it had them. */
int refnic_flows_restore(struct rte_eth_dev *dev);
int refnic_flow_ops_get(struct rte_eth_dev *dev, const struct rte_flow_ops **ops);
int refnic_rx_metadata_negotiate(struct rte_eth_dev *dev, uint64_t *features);

/* refnic_intr.c */
int refnic_aeq_setup(struct refnic_adapter *ad);
void refnic_aeq_free(struct refnic_adapter *ad);
int refnic_intr_init(struct rte_eth_dev *dev);
void refnic_intr_fini(struct rte_eth_dev *dev);
bool refnic_queue_error_confirm(struct rte_eth_dev *dev, bool tx, uint16_t qid,
				const char *seen);
int refnic_rxq_intr_setup(struct rte_eth_dev *dev);
void refnic_rxq_intr_teardown(struct rte_eth_dev *dev);
int refnic_rx_queue_intr_enable(struct rte_eth_dev *dev, uint16_t qid);
int refnic_rx_queue_intr_disable(struct rte_eth_dev *dev, uint16_t qid);

void refnic_itr_init(struct refnic_adapter *ad);
void refnic_itr_apply(struct refnic_adapter *ad, uint16_t q);
void refnic_itr_adapt(struct refnic_adapter *ad, uint16_t q, bool tx, uint64_t packets,
		      uint16_t ring_size);
uint32_t refnic_itr_current(const struct refnic_adapter *ad, uint16_t q, bool tx);

/* For rte_pmd_refnic_*(): is it ours, and has it queue_id. */
bool refnic_is_port(const struct rte_eth_dev *dev);
/* change: the call changes the port, which only the primary process may. */
int refnic_port_queue_get(uint16_t port_id, uint16_t queue_id, bool change,
			  struct rte_eth_dev **dev);

/* refnic_doorbell.c */
void refnic_db_check_init(struct refnic_adapter *ad);
void refnic_db_check_start(struct rte_eth_dev *dev);
void refnic_db_check_stop(struct rte_eth_dev *dev);
void refnic_db_admin_wait_start(struct refnic_adapter *ad);
void refnic_db_admin_wait(struct refnic_adapter *ad);
uint64_t refnic_db_recoveries(const struct refnic_adapter *ad);
uint64_t refnic_db_queue_recoveries(const struct refnic_adapter *ad, uint16_t q, bool tx);
uint64_t refnic_db_checks(const struct refnic_adapter *ad);
void refnic_db_stats_reset(struct refnic_adapter *ad);

/* refnic_stats.c: the port's counters, from the probe or the last stats
 * reset, on across recoveries, rte_eth_dev_reset() and queue setups. */
int refnic_stats_fill(struct rte_eth_dev *dev, struct rte_eth_stats *stats,
		      struct refnic_qstats *qstats);
int refnic_stats_reset(struct rte_eth_dev *dev);
/* Under stats_lock, with ad->hw_stats the device's first answer since its
 * reset: the port's counters start there (probe), or go on (go_on). */
void refnic_hw_stats_rebase(struct refnic_adapter *ad, bool go_on);
/* A queue set up takes on what the queues of its id counted, and is
 * published in dev->data; a queue released leaves its counts to the port
 * and is unpublished (before its memory goes). */
void refnic_queue_stats_join(struct rte_eth_dev *dev, bool tx, uint16_t qid, void *queue,
			     struct refnic_queue_stats *base);
void refnic_queue_stats_leave(struct rte_eth_dev *dev, bool tx, uint16_t qid,
			      const struct refnic_queue_stats *stats,
			      const struct refnic_queue_stats *base);
/* Queue id q's counts since the last stats reset: its queue's, with its
 * predecessors', or theirs alone while none is set up. Under stats_lock. */
void refnic_queue_counts(const struct rte_eth_dev *dev, uint16_t q, bool tx,
			 struct refnic_queue_stats *out);

/* refnic_xstats.c */
int refnic_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xstats, unsigned int n);
int refnic_xstats_get_names(struct rte_eth_dev *dev, struct rte_eth_xstat_name *names,
			    unsigned int n);
int refnic_xstats_reset(struct rte_eth_dev *dev);
struct refnic_state_sink;
/* Queue q's device counters since the last reset, named as its xstats. */
void refnic_queue_hw_counters(const struct refnic_adapter *ad, uint16_t q, bool tx,
			      struct refnic_state_sink *s);

/* refnic_mp.c: a secondary's reads and resets, done by the primary. */
void refnic_mp_listen(void);
int refnic_mp_port_closing(struct rte_eth_dev *dev);
int refnic_mp_stats_fill(struct rte_eth_dev *dev, struct rte_eth_stats *stats,
			 struct refnic_qstats *qstats);
int refnic_mp_stats_reset(struct rte_eth_dev *dev);
int refnic_mp_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xstats,
			 unsigned int n);
int refnic_mp_xstats_reset(struct rte_eth_dev *dev);
int refnic_mp_reta_query(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *reta,
			 uint16_t reta_size);
int refnic_mp_rss_hash_conf_get(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf);
int refnic_mp_priv_dump(struct rte_eth_dev *dev, FILE *f);

/* refnic_wc.c */
void refnic_wc_select(struct rte_eth_dev *dev);

/* refnic_timesync.c: the device clock, IEEE 1588 (contract 1.4) */
int refnic_read_clock(struct rte_eth_dev *dev, uint64_t *clock);
int refnic_timesync_enable(struct rte_eth_dev *dev);
int refnic_timesync_disable(struct rte_eth_dev *dev);
int refnic_timesync_restore(struct rte_eth_dev *dev);
int refnic_timesync_read_rx_timestamp(struct rte_eth_dev *dev, struct timespec *ts,
				      uint32_t index);
int refnic_timesync_read_tx_timestamp(struct rte_eth_dev *dev, struct timespec *ts);
int refnic_timesync_adjust_time(struct rte_eth_dev *dev, int64_t delta);
int refnic_timesync_read_time(struct rte_eth_dev *dev, struct timespec *ts);
int refnic_timesync_write_time(struct rte_eth_dev *dev, const struct timespec *ts);

/* refnic_info.c */
/*
 * Where refnic_port_state() writes a port's state: the private dump's text
 * or a telemetry dict. One walk, so that both show the same things.
 */
struct refnic_state_sink {
	/* A new group of values: "device", "admin", ..., or "rxq" with index >= 0. */
	void (*group)(struct refnic_state_sink *s, const char *name, int index);
	void (*u64)(struct refnic_state_sink *s, const char *key, uint64_t val);
	void (*str)(struct refnic_state_sink *s, const char *key, const char *val);
};
void refnic_port_state(struct rte_eth_dev *dev, struct refnic_state_sink *s);
int refnic_dev_priv_dump(struct rte_eth_dev *dev, FILE *f);
int refnic_rx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid,
			     struct rte_eth_burst_mode *mode);
int refnic_tx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid,
			     struct rte_eth_burst_mode *mode);

#endif /* _REFNIC_H_ */
