package com.teamdesk.tasks.web;

import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;
import java.lang.annotation.Annotation;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps request paths the HTTP engine cannot route away from its URI decoder (issue 49, items 8 and 9). Payara's
 * Catalina decodes and normalises the path before any filter, error page or authentication runs, and fails on
 * some paths in ways no application code sees:
 * <ul>
 * <li>a path ending in {@code /..} or {@code /.}: Grizzly's {@code HttpRequestURIDecoder.normalizeBytes} appends a
 * {@code /} one byte past the decode buffer, which {@code RequestURIRef} sized to exactly the raw path when no
 * earlier request on the same pooled object was longer; the {@code ArrayIndexOutOfBoundsException} is logged
 * SEVERE and swallowed by {@code CoyoteAdapter.service}, and the client gets an empty 200 that nobody
 * authenticated — intermittently, depending on which pooled request it got;</li>
 * <li>a broken escape ({@code %zz}): the same swallowed exception, an empty 200;</li>
 * <li>{@code %00}, {@code %5c}, bytes that are not UTF-8, a target not starting with {@code /} (CONNECT's
 * {@code host:port}): {@code sendError(400)} before the web module is chosen, so no error page applies — an
 * empty 400 (for CONNECT also never ended).</li>
 * </ul>
 * How: a Grizzly {@code HttpProbe} on every HTTP listener's codec filter. Grizzly calls
 * {@code onHeaderParseEvent} once the request head is parsed, before the request goes up to Catalina; when the
 * raw path is one {@link RequestFormFilter#pathFault} refuses anyway (or does not start with {@code /}), the
 * probe replaces it with {@link PathRefusalServlet}'s path, and the request then takes the application's normal
 * course — authentication, filters — to a 400 problem+json {@code request.path_invalid}. Valid paths are not
 * touched. Reached by reflection (the WAR compiles against the Jakarta EE API only): HK2's
 * {@code Globals.getDefaultHabitat()} → {@code GrizzlyService.proxies} → {@code GrizzlyProxy.getUnderlyingListener()}
 * → {@code GenericGrizzlyListener.getFilters(HttpServerFilter)} → {@code getMonitoringConfig().addProbes}. On a
 * server where any step is missing it logs one WARNING and does nothing; docs/operations.md gives the proxy
 * rule that blocks the same paths. Removed when the application stops.
 */
@WebListener
public class EnginePathGuard implements ServletContextListener {
    private static final Logger LOG = Logger.getLogger(EnginePathGuard.class.getName());

    /** Probes added, with the monitoring configurations that hold them, to take them off again. */
    private final List<Runnable> removals = new ArrayList<>();

    /** Installs the probe on every HTTP listener of the server (see the type's Javadoc). */
    @Override
    public void contextInitialized(ServletContextEvent event) {
        ServletContext context = event.getServletContext();
        String refusedPath = context.getContextPath() + PathRefusalServlet.PATH;
        try {
            int listeners = install(context.getClass().getClassLoader(), refusedPath);
            LOG.info(() -> "Paths the HTTP engine cannot decode go to " + refusedPath + " (" + listeners
                    + " HTTP listener(s); docs/decisions.md \"Paths the engine cannot route\").");
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.log(Level.WARNING, "The HTTP engine is not Payara 6's Grizzly as expected (" + e + "): paths ending in"
                    + " '/..', with '%00' or broken escapes are answered by the engine itself (empty 200 or 400); block"
                    + " them at the proxy (docs/operations.md).");
        }
    }

    /** Takes the probes off again, so that a redeployed application leaves no probe of its old class loader. */
    @Override
    public void contextDestroyed(ServletContextEvent event) {
        synchronized (removals) {
            removals.forEach(Runnable::run);
            removals.clear();
        }
    }

    private int install(ClassLoader engine, String refusedPath) throws ReflectiveOperationException {
        Class<?> globals = Class.forName("org.glassfish.internal.api.Globals", true, engine);
        Object locator = globals.getMethod("getDefaultHabitat").invoke(null);
        Class<?> locatorType = Class.forName("org.glassfish.hk2.api.ServiceLocator", false, engine);
        Class<?> serviceType = Class.forName("com.sun.enterprise.v3.services.impl.GrizzlyService", true, engine);
        Object service = locatorType.getMethod("getService", Class.class, Annotation[].class)
                .invoke(locator, serviceType, new Annotation[0]);
        if (service == null) {
            throw new IllegalStateException("no GrizzlyService");
        }
        Field proxiesField = serviceType.getDeclaredField("proxies");
        proxiesField.setAccessible(true);
        Collection<?> proxies = List.copyOf((Collection<?>) proxiesField.get(service));
        Class<?> codecType = Class.forName("org.glassfish.grizzly.http.HttpServerFilter", true, engine);
        Class<?> probeType = Class.forName("org.glassfish.grizzly.http.HttpProbe", true, engine);
        Class<?> requestType = Class.forName("org.glassfish.grizzly.http.HttpRequestPacket", true, engine);
        Object probe = probe(probeType, requestType, refusedPath);
        Object probes = Array.newInstance(probeType, 1);
        Array.set(probes, 0, probe);
        int listeners = 0;
        for (Object proxy : proxies) {
            Object listener = proxy.getClass().getMethod("getUnderlyingListener").invoke(proxy);
            if (listener == null) {
                continue;
            }
            List<?> codecs = (List<?>) listener.getClass().getMethod("getFilters", Class.class).invoke(listener, codecType);
            for (Object codec : codecs) {
                Object config = codecType.getMethod("getMonitoringConfig").invoke(codec);
                Method add = method(config.getClass(), "addProbes");
                Method remove = method(config.getClass(), "removeProbes");
                add.invoke(config, probes);
                synchronized (removals) {
                    removals.add(() -> {
                        try {
                            remove.invoke(config, probes);
                        } catch (ReflectiveOperationException | RuntimeException e) {
                            LOG.log(Level.FINE, "probe not removed", e);
                        }
                    });
                }
            }
            listeners += codecs.isEmpty() ? 0 : 1;
        }
        if (listeners == 0) {
            throw new IllegalStateException("no HTTP codec filter among " + proxies.size() + " listener(s)");
        }
        return listeners;
    }

    /** @return an {@code HttpProbe} whose only act is {@link #guard} on each parsed request head */
    private static Object probe(Class<?> probeType, Class<?> requestType, String refusedPath)
            throws ReflectiveOperationException {
        Method getUri = requestType.getMethod("getRequestURI");
        Method setUri = requestType.getMethod("setRequestURI", String.class);
        return Proxy.newProxyInstance(probeType.getClassLoader(), new Class<?>[] {probeType}, (self, m, args) -> {
            switch (m.getName()) {
                case "onHeaderParseEvent" -> {
                    if (requestType.isInstance(args[1])) {
                        guard(args[1], getUri, setUri, refusedPath);
                    }
                }
                case "hashCode" -> {
                    return System.identityHashCode(self);
                }
                case "equals" -> {
                    return self == args[0];
                }
                case "toString" -> {
                    return "teamdesk path guard";
                }
                default -> {
                    // every other event: nothing to do
                }
            }
            return null;
        });
    }

    /** Replaces a refused raw path of {@code request} by {@code refusedPath}; never throws into the engine. */
    private static void guard(Object request, Method getUri, Method setUri, String refusedPath) {
        try {
            String raw = (String) getUri.invoke(request);
            if (refused(raw)) {
                setUri.invoke(request, refusedPath);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.log(Level.FINE, "path guard", e);
        }
    }

    /**
     * @return true when the raw request path (without its query) is one the application refuses anyway: not
     *         starting with {@code /} (other than {@code *}), or with a fault {@link RequestFormFilter#pathFault}
     *         names
     */
    static boolean refused(String rawPath) {
        if ("*".equals(rawPath)) {
            return false; // OPTIONS * (the server as a whole): the engine handles it
        }
        return rawPath == null || !rawPath.startsWith("/") || RequestFormFilter.pathFault(rawPath) != null;
    }

    private static Method method(Class<?> type, String name) throws NoSuchMethodException {
        for (Method m : type.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == 1 && m.getParameterTypes()[0].isArray()) {
                return m;
            }
        }
        throw new NoSuchMethodException(type.getName() + "." + name);
    }
}
