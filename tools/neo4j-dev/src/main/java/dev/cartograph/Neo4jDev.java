package dev.cartograph;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;

/**
 * A development/test Neo4j server: the embedded Community DBMS with Bolt on
 * 127.0.0.1:PORT, no authentication (unless a password is given), no HTTP, small
 * page cache and tiny transaction-log retention.
 *
 * <pre>
 *   java [jvm flags] -cp target/classes:target/lib/* dev.cartograph.Neo4jDev \
 *        --port 7687 --data /path/to/dir [--pagecache 256m] [--tx-log-rotation 4m]
 *        [--conf neo4j.conf] [--watch-pid PID]
 * </pre>
 *
 * Prints exactly one line {@code READY bolt://127.0.0.1:PORT} to stdout once the
 * default database {@code neo4j} answers a query, then blocks until the JVM is
 * asked to exit (SIGTERM/SIGINT), which shuts the DBMS down cleanly.
 * With {@code --watch-pid PID} it also shuts down when process PID exits (used by
 * test runs so a killed test process does not leave a server behind).
 * {@code --conf FILE} loads extra neo4j.conf-style settings; the settings this
 * launcher sets itself take precedence.
 * With the environment variable {@code NEO4J_DEV_PASSWORD} set (at least 8
 * characters), authentication is on and user {@code neo4j} has that password (no
 * change required) before READY is printed; the password is kept in the data
 * directory's system database, so a restart on the same directory keeps it. (An
 * environment variable rather than a flag: a command line is visible to every user.)
 * Exit codes: 0 after a clean shutdown, 2 on bad arguments, 1 on a failed start.
 */
public final class Neo4jDev {

    private static final String DEFAULT_DATABASE = "neo4j";

    private Neo4jDev() {}

    public static void main(String[] args) {
        int port = 7687;
        Path data = null;
        String pagecache = "256m";
        String txLogRotation = "4m";
        Path conf = null;
        long watchPid = -1;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (a) {
                case "--port" -> { port = Integer.parseInt(need(a, v)); i++; }
                case "--data" -> { data = Path.of(need(a, v)); i++; }
                case "--pagecache" -> { pagecache = need(a, v); i++; }
                case "--tx-log-rotation" -> { txLogRotation = need(a, v); i++; }
                case "--conf" -> { conf = Path.of(need(a, v)); i++; }
                case "--watch-pid" -> { watchPid = Long.parseLong(need(a, v)); i++; }
                case "-h", "--help" -> { usage(); System.exit(0); }
                default -> { System.err.println("unknown argument: " + a); usage(); System.exit(2); }
            }
        }
        if (data == null) {
            System.err.println("--data DIR is required");
            usage();
            System.exit(2);
        }
        if (port <= 0 || port > 65535) {
            System.err.println("bad --port " + port);
            System.exit(2);
        }

        final String password = System.getenv("NEO4J_DEV_PASSWORD");
        final boolean auth = password != null && !password.isEmpty();
        if (auth && password.length() < 8) {
            System.err.println("NEO4J_DEV_PASSWORD must have at least 8 characters (Neo4j's minimum)");
            System.exit(2);
        }

        final Path home = data.toAbsolutePath().normalize();
        try {
            Files.createDirectories(home);
        } catch (IOException e) {
            System.err.println("cannot create data dir " + home + ": " + e);
            System.exit(1);
        }

        long t0 = System.nanoTime();
        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home);
        if (conf != null) {
            builder.loadPropertiesFromFile(conf);
        }
        builder.setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(HttpConnector.enabled, false)
                .setConfig(HttpsConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, auth)
                .setConfig(GraphDatabaseSettings.pagecache_memory, parseBytes(pagecache))
                // Keep only the newest transaction log file, rotate small, do not
                // preallocate: a throw-away dev/test store stays a few MB on disk.
                .setConfig(GraphDatabaseSettings.keep_logical_logs, "false")
                .setConfig(GraphDatabaseSettings.logical_log_rotation_threshold, parseBytes(txLogRotation))
                .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .setConfig(GraphDatabaseSettings.udc_enabled, false)
                // Netty's graceful shutdown waits a 5 s quiet period per event-loop
                // group (two of them), which made every stop take >10 s. Nothing
                // needs draining on a dev/test server, so stop promptly.
                .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
                .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_timeout, Duration.ofSeconds(5));

        final DatabaseManagementService dbms;
        try {
            dbms = builder.build();
        } catch (Throwable t) {
            System.err.println("FAILED to start Neo4j: " + t);
            t.printStackTrace();
            System.exit(1);
            return;
        }

        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.err.println("Neo4jDev: shutting down");
            try {
                dbms.shutdown();
                System.err.println("Neo4jDev: stopped cleanly");
            } catch (Throwable t) {
                System.err.println("Neo4jDev: error during shutdown: " + t);
            } finally {
                stopped.countDown();
            }
        }, "neo4j-dev-shutdown"));

        try {
            GraphDatabaseService db = dbms.database(DEFAULT_DATABASE);
            if (!db.isAvailable(Duration.ofMinutes(2).toMillis())) {
                throw new IllegalStateException("database '" + DEFAULT_DATABASE + "' not available after 2 minutes");
            }
            try (Transaction tx = db.beginTx()) {
                tx.execute("RETURN 1").close();
                tx.commit();
            }
            if (auth) {
                setPassword(dbms, password);
            }
        } catch (Throwable t) {
            System.err.println("FAILED: default database did not come up: " + t);
            t.printStackTrace();
            System.exit(1); // the shutdown hook stops the DBMS
            return;
        }

        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        System.err.println("Neo4jDev: started in " + ms + " ms, home " + home);
        System.out.println("READY bolt://127.0.0.1:" + port);
        System.out.flush();

        if (watchPid > 0) {
            watchParent(watchPid);
        }

        // Block until the shutdown hook has run (SIGTERM/SIGINT/System.exit).
        while (true) {
            try {
                stopped.await();
                return;
            } catch (InterruptedException ignored) {
                // keep waiting
            }
        }
    }

    /**
     * Exit (cleanly, through the shutdown hook) when process {@code pid} ends, so a
     * server started by a test run that gets killed does not outlive it.
     */
    private static void watchParent(long pid) {
        var handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive()) {
            System.err.println("Neo4jDev: watched process " + pid + " is gone; exiting");
            System.exit(0);
        }
        handle.get().onExit().thenRun(() -> {
            System.err.println("Neo4jDev: watched process " + pid + " exited; shutting down");
            System.exit(0);
        });
    }

    /**
     * Give user {@code neo4j} the password, no change required (the embedded API runs
     * administration commands on the system database with full rights). Setting the
     * password it already has is refused by Neo4j; that is fine on a restart.
     */
    private static void setPassword(DatabaseManagementService dbms, String password) {
        GraphDatabaseService system = dbms.database("system");
        try {
            system.executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
                    Map.of("password", password));
        } catch (RuntimeException e) {
            String message = String.valueOf(e.getMessage());
            Throwable cause = e.getCause();
            while (cause != null) {
                message += " / " + cause.getMessage();
                cause = cause.getCause();
            }
            if (!message.contains("cannot be the same")) {
                throw e;
            }
        }
        System.err.println("Neo4jDev: authentication on (user neo4j)");
    }

    private static String need(String flag, String value) {
        if (value == null) {
            System.err.println(flag + " needs a value");
            System.exit(2);
        }
        return value;
    }

    /** "256m" / "1g" / "512k" / "1048576" to bytes. */
    static long parseBytes(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        if (t.endsWith("b")) {
            t = t.substring(0, t.length() - 1);
        }
        long mult = 1;
        if (t.endsWith("k")) {
            mult = 1L << 10;
        } else if (t.endsWith("m")) {
            mult = 1L << 20;
        } else if (t.endsWith("g")) {
            mult = 1L << 30;
        }
        if (mult != 1) {
            t = t.substring(0, t.length() - 1);
        }
        return Long.parseLong(t.trim()) * mult;
    }

    private static void usage() {
        System.err.println("usage: Neo4jDev --data DIR [--port N] [--pagecache 256m]"
                + " [--tx-log-rotation 4m] [--conf neo4j.conf] [--watch-pid PID]");
    }
}
