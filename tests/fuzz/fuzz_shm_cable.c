/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * libFuzzer: the far end of a shm cable is another process, and everything
 * in the cable's file is that process's to scribble on. Port R holds end 0
 * and port P end 1 of one shm cable, both in this process; the fuzzer plays
 * a hostile process at end 1 that writes straight into the file: frames to
 * R (slot lengths, generations, bytes), R's ring tail, end 1's pid,
 * generation and doze flag, the plug, the head of the ring R sends into.
 * R's engine takes it all as it comes, racing the writes as it would race a
 * real process. Nothing may crash or reach outside the file or R's buffers
 * (ASan, UBSan); what R delivers is a frame the contract allows; and once
 * the far end behaves again, its frames reach R (abort otherwise). P itself
 * sends nothing: the fuzzer is the only writer of R's ring, as a process
 * at end 1 would be.
 */

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "refnic_cable_shm.h"
#include "refnic_emu.h"

#define FZ_R		"net_refnic_fzr"
#define FZ_P		"net_refnic_fzp"
#define FZ_RING		256
#define FZ_MAX_SLOTS	16		/* frames an input writes */
#define FZ_DRAIN_MS	20		/* for R's engine to take them */
#define FZ_WAIT_MS	2000		/* for P's frame once the file is sane */
#define FZ_MARK_LEN	77		/* the well-formed frame's length */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rte_mempool *pool;
static uint16_t port_r, port_p;
static struct rte_ether_addr mac_r;
static struct shm_layout *shm;
static uint32_t gen_p;			/* end 1's generation, as P attached */

/* The input, read field by field; zeros once it runs out. */
struct input {
	const uint8_t *p;
	size_t left;
};

static uint32_t
take(struct input *in, size_t n)
{
	uint32_t v = 0;

	while (n-- > 0 && in->left > 0) {
		v = v << 8 | *in->p++;
		in->left--;
	}
	return v;
}

static int
port_start(uint16_t port)
{
	struct rte_eth_conf conf = { .intr_conf = { .lsc = 0 } };

	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, FZ_RING, SOCKET_ID_ANY, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, FZ_RING, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start(port) != 0)
		return -1;
	return rte_eth_promiscuous_enable(port);
}

/* Take what R received; returns how many were the well-formed frame. */
static unsigned int
receive_r(void)
{
	struct rte_mbuf *rx[32];
	unsigned int marks = 0;
	uint16_t n, i;

	while ((n = rte_eth_rx_burst(port_r, 0, rx, RTE_DIM(rx))) != 0) {
		for (i = 0; i < n; i++) {
			/* The device delivers Ethernet frames, within the contract. */
			if (rx[i]->pkt_len < RTE_ETHER_HDR_LEN ||
			    rx[i]->pkt_len > REFNIC_MAX_FRAME_LEN)
				abort();
			marks += rx[i]->pkt_len == FZ_MARK_LEN;
		}
		rte_pktmbuf_free_bulk(rx, n);
	}
	return marks;
}

static void
frame_fill(uint8_t *p, uint16_t len)
{
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)p;

	memset(p, 0x5a, len);
	eh->dst_addr = mac_r;
	eh->ether_type = rte_cpu_to_be_16(0x88b5);
}

/* R sends one frame, into the ring whose head the input may have written. */
static void
send_r(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL)
		return;
	frame_fill((uint8_t *)rte_pktmbuf_append(m, 64), 64);
	if (rte_eth_tx_burst(port_r, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
}

/* A frame to R as a well-behaved end 1 writes it. */
static void
write_good_frame(void)
{
	struct shm_ring *ring = &shm->ring[0];
	uint32_t tail = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
	struct shm_slot *slot = &ring->slot[tail % SHM_SLOTS];

	frame_fill(slot->data, FZ_MARK_LEN);
	slot->len = FZ_MARK_LEN;
	slot->src_gen = gen_p;
	slot->dst_gen = shm->end[0].gen;
	__atomic_store_n(&ring->tail, tail + 1, __ATOMIC_RELEASE);
	refnic_emu_kick_engines(refnic_emu_lookup(FZ_R));
}

/* Frames to R from the input, written where P would write them. */
static uint32_t
write_slots(struct input *in, uint32_t head)
{
	struct shm_ring *ring = &shm->ring[0];
	uint32_t k, n = take(in, 1) % (FZ_MAX_SLOTS + 1);

	for (k = 0; k < n && in->left > 0; k++) {
		struct shm_slot *slot = &ring->slot[(head + k) % SHM_SLOTS];
		uint32_t len = take(in, 2) | (take(in, 1) & 1 ? take(in, 2) << 16 : 0);
		uint8_t gens = take(in, 1);
		size_t copy;

		slot->len = len;
		slot->src_gen = gens & 1 ? gen_p : take(in, 4);
		slot->dst_gen = gens & 2 ? shm->end[0].gen : take(in, 4);
		copy = RTE_MIN((size_t)RTE_MIN(len, (uint32_t)SHM_SLOT_DATA), in->left);
		memcpy(slot->data, in->p, copy);
		in->p += copy;
		in->left -= copy;
	}
	return n;
}

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv)
{
	char *eal[] = { (*argv)[0], "--no-huge", "-m", "512", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0", "--log-level=*:emerg", NULL };
	char cable[32], args[96], path[64];
	int fd;

	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		abort();
	pool = rte_pktmbuf_pool_create("fuzz", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	snprintf(cable, sizeof(cable), "fzshm%d", (int)getpid());
	snprintf(args, sizeof(args), "cable=shm:%s,profile=ideal,itr=off", cable);
	/* R attaches first: it takes end 0. */
	if (pool == NULL || rte_vdev_init(FZ_R, args) != 0 || rte_vdev_init(FZ_P, args) != 0 ||
	    rte_eth_dev_get_port_by_name(FZ_R, &port_r) != 0 ||
	    rte_eth_dev_get_port_by_name(FZ_P, &port_p) != 0 ||
	    port_start(port_r) != 0 || port_start(port_p) != 0 ||
	    rte_eth_macaddr_get(port_r, &mac_r) != 0)
		abort();
	snprintf(path, sizeof(path), REFNIC_SHM_PATH_FMT, cable);
	fd = shm_open(path, O_RDWR, 0);
	if (fd < 0)
		abort();
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	/* Gone with the process: no file left in /dev/shm. */
	shm_unlink(path);
	if (shm == MAP_FAILED || shm->magic != SHM_MAGIC)
		abort();
	gen_p = shm->end[1].gen;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct shm_ring *ring = &shm->ring[0];
	uint32_t head, flags, n;
	uint64_t end, hz = rte_get_timer_hz();

	if (size == 0)
		return 0;
	flags = take(&in, 1);
	if (flags & 0x01)
		shm->end[1].gen = take(&in, 4);
	if (flags & 0x02)
		shm->end[1].pid = (int32_t)take(&in, 4);
	if (flags & 0x04)
		shm->unplugged = take(&in, 1);
	if (flags & 0x08)
		shm->end[1].dozing = take(&in, 1);
	if (flags & 0x10)	/* the head of the ring R sends into: P's to write */
		shm->ring[1].head = take(&in, 4);
	head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
	n = write_slots(&in, head);
	__atomic_store_n(&ring->tail, flags & 0x20 ? take(&in, 4) : head + n, __ATOMIC_RELEASE);
	refnic_emu_kick_engines(refnic_emu_lookup(FZ_R));
	send_r();
	end = rte_get_timer_cycles() + FZ_DRAIN_MS * hz / 1000;
	do {
		receive_r();
		rte_delay_us_sleep(200);
	} while (__atomic_load_n(&ring->head, __ATOMIC_ACQUIRE) != ring->tail &&
		 rte_get_timer_cycles() < end);
	receive_r();

	/* The far end behaves again: its frames reach R. */
	shm->end[1].gen = gen_p;
	shm->end[1].pid = (int32_t)getpid();
	shm->end[1].dozing = 0;
	shm->unplugged = 0;
	shm->ring[1].head = __atomic_load_n(&shm->ring[1].tail, __ATOMIC_ACQUIRE);
	end = rte_get_timer_cycles() + FZ_WAIT_MS * hz / 1000;
	do {
		write_good_frame();
		rte_delay_us_sleep(1000);
		if (receive_r() != 0)
			return 0;
	} while (rte_get_timer_cycles() < end);
	fprintf(stderr, "fuzz_shm_cable: a well-formed frame no longer reaches R\n");
	abort();
}
