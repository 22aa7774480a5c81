package dev.loompool.jdbc.internal.driver;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Finds a driver's own public methods by name: the core depends on no driver. */
final class DriverMethods {

    private DriverMethods() {
    }

    /**
     * A public no-argument method, looked up on the public interfaces of {@code type} first (a
     * proxy's or a driver's class may be hidden behind them), then on its public classes; or null.
     */
    static MethodHandle find(Class<?> type, String name) throws IllegalAccessException {
        ArrayDeque<Class<?>> interfaces = new ArrayDeque<>();
        List<Class<?>> classes = new ArrayList<>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            classes.add(c);
            interfaces.addAll(List.of(c.getInterfaces()));
        }
        if (type.isInterface()) {
            interfaces.add(type);
        }
        Set<Class<?>> seen = new HashSet<>();
        while (!interfaces.isEmpty()) {
            Class<?> i = interfaces.poll();
            if (seen.add(i)) {
                MethodHandle h = findIn(i, name);
                if (h != null) {
                    return h;
                }
                interfaces.addAll(List.of(i.getInterfaces()));
            }
        }
        for (Class<?> c : classes) {
            MethodHandle h = findIn(c, name);
            if (h != null) {
                return h;
            }
        }
        return null;
    }

    static MethodHandle findIn(Class<?> c, String name) throws IllegalAccessException {
        if (!Modifier.isPublic(c.getModifiers())) {
            return null;
        }
        try {
            Method m = c.getMethod(name);
            return Modifier.isStatic(m.getModifiers()) ? null : MethodHandles.publicLookup().unreflect(m);
        } catch (NoSuchMethodException | SecurityException | IllegalAccessException e) {
            return null;
        }
    }

}
