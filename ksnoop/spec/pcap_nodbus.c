// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libpcap's D-Bus capture module, left out.  ksnoop links Debian's
 * libpcap.a statically and only compiles filters on a dead handle; the
 * archive's pcap-dbus.o would pull in libdbus, of which Debian ships no
 * static archive.  These are the two entry points libpcap's device list
 * and pcap_create() call into that module: defined here, the linker
 * takes them and never loads pcap-dbus.o.  They find no D-Bus devices
 * and create none (the signatures are libpcap's pcap-dbus.h).
 */
#include <stddef.h>

int dbus_findalldevs(void *devlistp, char *errbuf);
void *dbus_create(const char *device, char *ebuf, int *is_ours);

int dbus_findalldevs(void *devlistp, char *errbuf)
{
	(void)devlistp;
	(void)errbuf;
	return 0;
}

void *dbus_create(const char *device, char *ebuf, int *is_ours)
{
	(void)device;
	(void)ebuf;
	*is_ours = 0;
	return NULL;
}
