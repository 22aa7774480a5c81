package dev.loompool.jdbc.internal.driver;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;

/**
 * pgjdbc's cache of type names, one per physical connection ({@code TypeInfoCache}, reached by
 * {@code BaseConnection.getTypeInfo()}): the oid of a name is looked up once, under the search path
 * in force then, and kept for the connection's life. A borrower that set another tenant's path
 * would send the next one's value typed by name ({@code PGobject}, {@code createArrayOf}) as the
 * first one's type: a domain's scale silently taken, an enum refused. No session reset reaches
 * it, and pgjdbc offers no call that clears it (42.2 to 42.7).
 *
 * <p>So the cache is put back as it was on a fresh connection of the pool, after a session that
 * changed the search path: every map the cache holds is set to what it held on the pool's first
 * connection before anything ran on it (the driver's core types and its {@code addDataType}s,
 * the same on every connection of one URL). Its fields are the driver's own, read by reflection
 * (pgjdbc has named them alike since 42.2; 42.2.0 with a leading underscore): only a cache whose
 * every field is a map, a statement, the connection, a lock or a number is trusted to be put
 * back whole. Anything else (a pgjdbc that reworked its cache, a driver whose fields cannot be
 * opened) cannot be, and its connections are closed after such a session instead
 * ({@link SessionReset#forgetTypeNames}).
 */
final class TypeNames {

    /** Not pgjdbc: nothing known of the driver's caches. */
    static final TypeNames NONE = new TypeNames(null, null, null, null);

    /** {@code getTypeInfo()} of the driver's connection. */
    private final MethodHandle typeInfo;
    /** The cache's class as found on the first connection; null if it cannot be put back. */
    private final Class<?> cacheClass;
    private final Field[] maps;
    /** What each map held on a fresh connection. */
    private final Map<Object, Object>[] fresh;

    private TypeNames(MethodHandle typeInfo, Class<?> cacheClass, Field[] maps, Map<Object, Object>[] fresh) {
        this.typeInfo = typeInfo;
        this.cacheClass = cacheClass;
        this.maps = maps;
        this.fresh = fresh;
    }

    /** From {@code raw}, fresh from the driver, before anything ran on it. */
    @SuppressWarnings("unchecked")
    static TypeNames of(Connection raw) {
        MethodHandle h;
        try {
            h = DriverMethods.find(raw.getClass(), "getTypeInfo");
        } catch (IllegalAccessException | RuntimeException e) {
            h = null;
        }
        if (h == null) {
            return NONE;
        }
        h = h.asType(MethodType.methodType(Object.class, Connection.class));
        try {
            Object cache = (Object) h.invokeExact(raw);
            if (cache == null) {
                return new TypeNames(h, null, null, null);
            }
            List<Field> found = new ArrayList<>();
            for (Class<?> c = cache.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers())) {
                        continue;
                    }
                    Class<?> t = f.getType();
                    if (Map.class.isAssignableFrom(t)) {
                        f.setAccessible(true);
                        found.add(f);
                    } else if (!(t.isPrimitive() || Connection.class.isAssignableFrom(t)
                            || Statement.class.isAssignableFrom(t) || Lock.class.isAssignableFrom(t))) {
                        return new TypeNames(h, null, null, null); // a field of another kind: a cache of another shape
                    }
                }
            }
            if (found.isEmpty()) {
                return new TypeNames(h, null, null, null);
            }
            Map<Object, Object>[] copies = new Map[found.size()];
            for (int i = 0; i < copies.length; i++) {
                copies[i] = new HashMap<>((Map<Object, Object>) found.get(i).get(cache));
            }
            return new TypeNames(h, cache.getClass(), found.toArray(new Field[0]), copies);
        } catch (Error e) {
            throw e;
        } catch (Throwable e) { // InaccessibleObjectException, SecurityException, a driver's fault: not restorable
            return new TypeNames(h, null, null, null);
        }
    }

    /** Whether the driver keeps type names per connection (pgjdbc). */
    boolean driverKeepsNames() {
        return typeInfo != null;
    }

    /** Whether they can be put back as on a fresh connection. */
    boolean restorable() {
        return cacheClass != null;
    }

    /**
     * Puts the cache of {@code raw} back as on a fresh connection; false if it cannot be. Run by
     * the thread that returns the connection, which nobody else uses meanwhile.
     */
    @SuppressWarnings("unchecked")
    boolean restore(Connection raw) throws SQLException {
        if (cacheClass == null) {
            return false;
        }
        try {
            Object cache = (Object) typeInfo.invokeExact(raw);
            if (cache == null || cache.getClass() != cacheClass) {
                return false;
            }
            for (int i = 0; i < maps.length; i++) {
                Map<Object, Object> m = (Map<Object, Object>) maps[i].get(cache);
                m.clear();
                m.putAll(fresh[i]);
            }
            return true;
        } catch (SQLException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new SQLException("could not clear the driver's type names", e);
        }
    }
}
