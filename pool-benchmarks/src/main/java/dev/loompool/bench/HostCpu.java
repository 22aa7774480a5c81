package dev.loompool.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How busy the host and this JVM were over a stretch of a trial, in cores: whether a rate below
 * its ceiling was for want of CPU (the host's cores all busy) or of something else. The host's
 * figure comes from Linux's /proc/stat; elsewhere it is left out.
 */
final class HostCpu {

    private static final Path STAT = Path.of("/proc/stat");

    private final long wall = System.nanoTime();
    private final long jvm = jvmNanos();
    private final long[] host = hostTicks();

    /** This JVM's CPU time over the stretch, in cores. */
    double jvmCores() {
        return (jvmNanos() - jvm) / (double) (System.nanoTime() - wall);
    }

    /** The host's busy time over the stretch, in cores; NaN where /proc/stat cannot be read. */
    double hostCores() {
        long[] now = hostTicks();
        if (host == null || now == null || now[0] == host[0]) {
            return Double.NaN;
        }
        double busyShare = ((now[0] - host[0]) - (now[1] - host[1])) / (double) (now[0] - host[0]);
        return busyShare * Runtime.getRuntime().availableProcessors();
    }

    private static long jvmNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** All ticks and the idle ones (idle + iowait) of the "cpu" line, or null. */
    private static long[] hostTicks() {
        try {
            String[] f = Files.readAllLines(STAT).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length && i <= 8; i++) { // user nice system idle iowait irq softirq steal
                total += Long.parseLong(f[i]);
            }
            return new long[] {total, Long.parseLong(f[4]) + Long.parseLong(f[5])};
        } catch (Exception e) {
            return null;
        }
    }
}
