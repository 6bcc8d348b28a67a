package lore;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.neo4j.cli.ExecutionContext;
import org.neo4j.commandline.admin.security.SetInitialPasswordCommand;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.internal.kernel.api.connectioninfo.ClientConnectionInfo;
import org.neo4j.internal.kernel.api.security.AuthenticationResult;
import org.neo4j.io.ByteUnit;
import org.neo4j.io.fs.DefaultFileSystemAbstraction;
import org.neo4j.kernel.api.security.AuthManager;
import org.neo4j.kernel.api.security.AuthToken;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import picocli.CommandLine;

/**
 * Embedded Neo4j 5.26 with the Bolt connector on 127.0.0.1, for Lore's tests and CI.
 *
 * <p>Usage: {@code java -cp ... lore.Neo4jLauncher [port] [dataDir]}. Arguments win over the
 * environment: NEO4J_BOLT_PORT (default 7687), NEO4J_DATA_DIR (default
 * {@code <java.io.tmpdir>/lore-neo4j-<port>}), NEO4J_PASSWORD (default "lore-test-password"),
 * NEO4J_WIPE=1 (delete the data directory before starting), NEO4J_PAGECACHE (default "128m"),
 * NEO4J_PID_FILE (this process writes its pid there). The data directory persists across
 * restarts unless NEO4J_WIPE=1.
 *
 * <p>Auth is enabled: user {@code neo4j}, password NEO4J_PASSWORD, never "change required". A new
 * store gets it like {@code neo4j-admin dbms set-initial-password}; an existing store made with
 * another password gets {@code ALTER USER} on the system database. Prints exactly one line
 * {@code NEO4J READY bolt://127.0.0.1:<port>} on stdout once Bolt accepts connections with those
 * credentials (everything else goes to stderr); SIGTERM/SIGINT shut the DBMS down cleanly.
 */
public final class Neo4jLauncher {
    private static final String USER = "neo4j";
    /** Written into every directory this launcher owns; NEO4J_WIPE only deletes such directories. */
    private static final String MARKER = ".lore-neo4j";

    private Neo4jLauncher() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> env = System.getenv();
        int port = Integer.parseInt(pick(args, 0, env.get("NEO4J_BOLT_PORT"), "7687").trim());
        Path dataDir = Paths.get(pick(args, 1, env.get("NEO4J_DATA_DIR"),
                Paths.get(System.getProperty("java.io.tmpdir"), "lore-neo4j-" + port).toString()))
                .toAbsolutePath().normalize();
        String password = pick(null, 0, env.get("NEO4J_PASSWORD"), "lore-test-password");
        if (password.length() < 8) {
            fail("NEO4J_PASSWORD must have at least 8 characters (Neo4j's minimum)");
        }
        String pageCache = pick(null, 0, env.get("NEO4J_PAGECACHE"), "128m");

        String pidFile = env.get("NEO4J_PID_FILE");
        if (pidFile != null && !pidFile.isBlank()) {
            Path p = Paths.get(pidFile);
            if (p.getParent() != null) Files.createDirectories(p.getParent());
            Files.writeString(p, ProcessHandle.current().pid() + "\n", StandardCharsets.US_ASCII);
        }

        if ("1".equals(env.get("NEO4J_WIPE")) || "true".equalsIgnoreCase(env.get("NEO4J_WIPE"))) {
            deleteRecursively(dataDir);
        }
        Files.createDirectories(dataDir);
        Files.writeString(dataDir.resolve(MARKER), "Lore test Neo4j home; safe to delete\n");
        log("data directory " + dataDir + ", bolt 127.0.0.1:" + port + ", page cache " + pageCache);

        AtomicReference<DatabaseManagementService> dbmsRef = new AtomicReference<>();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            DatabaseManagementService running = dbmsRef.get();
            if (running == null) return;
            log("shutting down");
            try {
                running.shutdown();
                log("stopped");
            } catch (Throwable t) {
                log("shutdown failed: " + t);
            } finally {
                stopped.countDown();
            }
        }, "neo4j-shutdown"));

        long t0 = System.nanoTime();
        try {
            if (!Files.exists(dataDir.resolve("data").resolve("databases").resolve("system"))) {
                setInitialPassword(dataDir, password);
            }
            dbmsRef.set(new DatabaseManagementServiceBuilder(dataDir)
                    .setConfig(BoltConnector.enabled, true)
                    .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                    .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                    .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                    .setConfig(GraphDatabaseSettings.auth_enabled, true)
                    .setConfig(GraphDatabaseSettings.pagecache_memory, parseBytes(pageCache))
                    // Bounds the heap used by open transactions (a too-big transaction fails, the JVM does not).
                    .setConfig(GraphDatabaseSettings.memory_transaction_global_max_size, ByteUnit.mebiBytes(256))
                    // No "anonymous usage data" calls to Neo4j from tests and CI.
                    .setConfig(GraphDatabaseSettings.udc_enabled, false)
                    // At shutdown Bolt waits 5 s + 5 s by default, after the databases have already stopped.
                    .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofMillis(250))
                    .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofMillis(250))
                    .build());
            log(String.format("DBMS started in %.1f s (JVM up %.1f s)", (System.nanoTime() - t0) / 1e9,
                    ManagementFactory.getRuntimeMXBean().getUptime() / 1e3));
            ensurePassword(dbmsRef.get(), password);
            waitForBolt(port, 60_000);
        } catch (Throwable t) {
            log("start-up failed: " + t);
            t.printStackTrace();
            System.exit(1);
        }
        log(String.format("ready in %.1f s (JVM up %.1f s)", (System.nanoTime() - t0) / 1e9,
                ManagementFactory.getRuntimeMXBean().getUptime() / 1e3));
        System.out.println("NEO4J READY bolt://127.0.0.1:" + port);
        System.out.flush();

        // Compile a first query in the background, so the tests' first query does not pay Cypher's warm-up.
        Thread warmUp = new Thread(() -> {
            try {
                dbmsRef.get().database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME).executeTransactionally("RETURN 1");
            } catch (Throwable ignored) {
                // shutting down already, or the default database is not available: nothing to warm
            }
        }, "cypher-warm-up");
        warmUp.setDaemon(true);
        warmUp.start();

        // Park the main thread; the DBMS threads keep running until the shutdown hook completes.
        stopped.await();
    }

    /**
     * A fresh store: do what {@code neo4j-admin dbms set-initial-password} does (write data/dbms/auth.ini),
     * so the system database creates user neo4j with this password and no forced change on first start.
     */
    private static void setInitialPassword(Path home, String password) {
        try (DefaultFileSystemAbstraction fs = new DefaultFileSystemAbstraction()) {
            ExecutionContext ctx = new ExecutionContext(home, home.resolve("conf"), System.err, System.err, fs);
            int rc = new CommandLine(new SetInitialPasswordCommand(ctx)).execute(password);
            if (rc != 0) log("set-initial-password exited with " + rc + "; will set the password with Cypher");
        } catch (Throwable t) {
            log("set-initial-password failed (" + t + "); will set the password with Cypher");
        }
    }

    /**
     * Makes neo4j's password NEO4J_PASSWORD with no forced change. A direct login check (no Cypher, which
     * costs ~3 s of warm-up) covers the usual case; otherwise (store made with another password, or
     * the initial-password file did not work) ALTER USER runs on the system database.
     */
    private static void ensurePassword(DatabaseManagementService dbms, String password) {
        GraphDatabaseService system = dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
        try {
            AuthManager auth = ((GraphDatabaseAPI) system).getDependencyResolver().resolveDependency(AuthManager.class);
            AuthenticationResult result = auth.login(AuthToken.newBasicAuthToken(USER, password),
                            ClientConnectionInfo.EMBEDDED_CONNECTION)
                    .subject().getAuthenticationResult();
            if (result == AuthenticationResult.SUCCESS) return;
            log("login check: " + result + "; setting the password");
        } catch (Throwable t) {
            log("login check unavailable (" + t + "); setting the password");
        }
        try {
            system.executeTransactionally(
                    "ALTER USER " + USER + " SET PLAINTEXT PASSWORD $pw CHANGE NOT REQUIRED",
                    Map.of("pw", password));
        } catch (RuntimeException e) {
            // Neo4j refuses to set the password it already has; then only clear the change flag.
            if (!String.valueOf(e.getMessage()).contains("cannot be the same")) throw e;
            system.executeTransactionally("ALTER USER " + USER + " SET PASSWORD CHANGE NOT REQUIRED");
        }
    }

    private static void waitForBolt(int port, long timeoutMs) throws InterruptedException, IOException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return;
            } catch (IOException e) {
                if (System.currentTimeMillis() > deadline) throw e;
                Thread.sleep(100);
            }
        }
    }

    private static long parseBytes(String s) {
        String v = s.trim().toLowerCase();
        long mult = 1;
        char last = v.charAt(v.length() - 1);
        if (last == 'k') mult = 1L << 10;
        else if (last == 'm') mult = 1L << 20;
        else if (last == 'g') mult = 1L << 30;
        if (mult != 1) v = v.substring(0, v.length() - 1);
        return Long.parseLong(v) * mult;
    }

    private static String pick(String[] args, int i, String envValue, String dflt) {
        if (args != null && args.length > i && !args[i].isBlank()) return args[i];
        if (envValue != null && !envValue.isBlank()) return envValue;
        return dflt;
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        boolean empty;
        try (Stream<Path> entries = Files.list(dir)) {
            empty = entries.findAny().isEmpty();
        }
        if (!empty && !Files.exists(dir.resolve(MARKER))) {
            fail("refusing to wipe " + dir + ": it has no " + MARKER + " marker, so it is not a Lore Neo4j directory");
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    private static void log(String msg) {
        System.err.println("[lore-neo4j] " + msg);
    }

    private static void fail(String msg) {
        log(msg);
        System.exit(2);
    }
}
