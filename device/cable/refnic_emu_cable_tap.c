/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * cable=tap:IFNAME - the port is wired to a Linux TAP interface, created
 * (or attached, if it exists and is free) when the device is. What the port
 * sends, the kernel receives on IFNAME; what the kernel sends on IFNAME, the
 * port receives. The interface may be moved to another network namespace;
 * the cable follows it. The link is up while the cable is plugged.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_string_fns.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_cable_kinds.h"
#include "refnic_emu_cable_services.h"

#define TAP_RX_BUDGET	32	/* frames per engine pass */

struct tap_cable {
	struct refnic_emu_cable c;
	int fd;
	bool unplugged;
	char ifname[IFNAMSIZ];
	uint8_t buf[REFNIC_MAX_FRAME_LEN + 1];	/* one more: longer frames show */
};

static void
tap_tx(struct refnic_emu_cable *c, struct refnic_emu *emu, const struct refnic_frame *f,
       struct refnic_rx_batch *b __rte_unused)
{
	struct tap_cable *tc = (struct tap_cable *)c;
	struct iovec iov[RTE_DIM(f->seg)];
	uint16_t s;

	if (tc->unplugged) {
		refnic_emu_svc_stats(emu)->cable_tx_dropped++;
		return;
	}
	for (s = 0; s < f->nb_segs; s++) {
		iov[s].iov_base = (void *)(uintptr_t)f->seg[s];
		iov[s].iov_len = f->seg_len[s];
	}
	/* The kernel refuses frames while the interface is down (EIO), or
	 * when its queue is full: the frame is lost, as on a wire. */
	if (writev(tc->fd, iov, f->nb_segs) != (ssize_t)f->len)
		refnic_emu_svc_stats(emu)->cable_tx_dropped++;
}

static void
tap_tx_flush(struct refnic_emu_cable *c __rte_unused, struct refnic_emu *emu __rte_unused,
	     struct refnic_rx_batch *b __rte_unused)
{
}

static unsigned int
tap_rx_service(struct refnic_emu_cable *c, struct refnic_emu *emu, uint64_t now __rte_unused)
{
	struct tap_cable *tc = (struct tap_cable *)c;
	struct refnic_frame f = { .nb_segs = 1 };
	struct refnic_rx_batch batch = { .held = NULL };
	unsigned int n;
	ssize_t len;

	for (n = 0; n < TAP_RX_BUDGET; n++) {
		len = read(tc->fd, tc->buf, sizeof(tc->buf));
		if (len <= 0)
			break;
		/* The kernel cuts what does not fit: a frame longer than any
		 * the port takes is dropped, not delivered cut. */
		if (tc->unplugged || len < EMU_ETH_HLEN || len > REFNIC_MAX_FRAME_LEN) {
			refnic_emu_svc_stats(emu)->cable_rx_dropped++;
			continue;
		}
		f.len = len;
		f.seg[0] = tc->buf;
		f.seg_len[0] = len;
		/* Copied into posted buffers here: the buffer is free again. */
		refnic_emu_svc_rx_frame(emu, &f, &batch);
	}
	refnic_emu_svc_rx_batch_end(&batch);
	return n;
}

static bool
tap_link_up(const struct refnic_emu_cable *c, const struct refnic_emu *emu __rte_unused)
{
	return !((const struct tap_cable *)c)->unplugged;
}

static void
tap_set_plugged(struct refnic_emu_cable *c, struct refnic_emu *emu, bool plugged)
{
	((struct tap_cable *)c)->unplugged = !plugged;
	refnic_emu_svc_update_link(emu);
}

/* Frames from the kernel make the fd readable: that wakes the engine. */
static int
tap_doze_prepare(struct refnic_emu_cable *c)
{
	return ((struct tap_cable *)c)->fd;
}

static void
tap_detach(struct refnic_emu_cable *c, struct refnic_emu *emu __rte_unused)
{
	struct tap_cable *tc = (struct tap_cable *)c;

	/* The kernel removes the interface with its last fd, unless it was
	 * made persistent (ip tuntap add) before. */
	close(tc->fd);
	free(tc);
}

static int tap_attach(struct refnic_emu *emu, const char *ifname, struct refnic_emu_cable **out);

const struct refnic_emu_cable_ops refnic_emu_cable_tap_ops = {
	.prefix = REFNIC_EMU_CABLE_TAP_PREFIX,
	.attach = tap_attach,
	.brings_frames = true,
	.tx = tap_tx,
	.tx_flush = tap_tx_flush,
	.rx_service = tap_rx_service,
	.link_up = tap_link_up,
	.set_plugged = tap_set_plugged,
	.doze_prepare = tap_doze_prepare,
	.detach = tap_detach,
};

static int
tap_attach(struct refnic_emu *emu, const char *ifname, struct refnic_emu_cable **out)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI };
	struct tap_cable *tc;
	int ret;

	if (ifname[0] == '\0' || strlen(ifname) >= IFNAMSIZ) {
		EMU_LOG(ERR, "%s: cable tap:%s: an interface name has 1 to %d characters",
			emu->name, ifname, IFNAMSIZ - 1);
		return -EINVAL;
	}
	tc = calloc(1, sizeof(*tc));
	if (tc == NULL)
		return -ENOMEM;
	strlcpy(tc->ifname, ifname, sizeof(tc->ifname));
	strlcpy(ifr.ifr_name, ifname, sizeof(ifr.ifr_name));
	tc->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (tc->fd < 0 || ioctl(tc->fd, TUNSETIFF, &ifr) != 0) {
		ret = -errno;
		EMU_LOG(ERR, "%s: cable tap:%s: cannot %s: %s", emu->name, ifname,
			tc->fd < 0 ? "open /dev/net/tun" : "create the TAP interface",
			strerror(errno));
		if (tc->fd >= 0)
			close(tc->fd);
		free(tc);
		return ret;
	}
	EMU_LOG(INFO, "%s: cable tap:%s", emu->name, ifr.ifr_name);
	*out = &tc->c;
	return 0;
}
