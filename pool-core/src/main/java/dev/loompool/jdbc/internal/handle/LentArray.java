package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Map;
import javax.sql.rowset.CachedRowSet;
import javax.sql.rowset.RowSetMetaDataImpl;
import javax.sql.rowset.RowSetProvider;

/**
 * A driver array, checked like every {@link LentObject}, with two differences that keep arrays off
 * the driver's connection:
 * <ul>
 *   <li>{@code getResultSet(…)} returns a disconnected copy (a {@link CachedRowSet}: its
 *       {@code getStatement()} is null), where the driver's would hand out its statement and
 *       connection. So an array only pins; it no longer exposes the connection.</li>
 *   <li>An array read from a result set is read at once (its elements, base type and name): its
 *       values then answer from memory, also after the handle closed (Spring's
 *       {@code queryForList} returns arrays to a caller whose connection went back long ago).
 *       Only the calls with a type map still need the driver, and refuse once the binding ended.</li>
 * </ul>
 */
final class LentArray extends LentObject<Array> implements Array {

    /** What {@code getArray()} answered when read, or null: then every call goes to the driver. */
    private Object elements;
    private int baseType;
    private String baseTypeName;
    /** The driver's text of it (pgjdbc's array literal), read with the elements: a binary array builds it through the connection. */
    private String text;
    private boolean freed;

    LentArray(Array delegate, LogicalConnection handle, PhysicalConnection physical, long binding, boolean fetched) {
        super(delegate, handle, physical, binding, "Array");
        if (fetched) {
            try {
                elements = delegate.getArray();
                baseType = delegate.getBaseType();
                baseTypeName = delegate.getBaseTypeName();
                text = delegate.toString();
            } catch (SQLException | RuntimeException notNow) {
                elements = null; // the driver reads it when asked, while the binding holds
            }
        }
    }

    /** Whether its values were read when it was handed out: then they answer from memory, after its binding too. */
    boolean readAtOnce() {
        return elements != null;
    }

    private void open() throws SQLException {
        if (freed) {
            throw new SQLException("pool '" + poolName + "': this Array was freed", "HY010");
        }
    }

    @Override
    public String getBaseTypeName() throws SQLException {
        open();
        if (elements != null) {
            return baseTypeName;
        }
        LogicalConnection h = enter();
        try {
            return delegate.getBaseTypeName();
        } catch (SQLException e) {
            throw error(e);
        } finally {
            leave(h);
        }
    }

    @Override
    public int getBaseType() throws SQLException {
        open();
        if (elements != null) {
            return baseType;
        }
        LogicalConnection h = enter();
        try {
            return delegate.getBaseType();
        } catch (SQLException e) {
            throw error(e);
        } finally {
            leave(h);
        }
    }

    @Override
    public Object getArray() throws SQLException {
        return getArray(1, Integer.MAX_VALUE, null);
    }

    @Override
    public Object getArray(Map<String, Class<?>> map) throws SQLException {
        return getArray(1, Integer.MAX_VALUE, map);
    }

    @Override
    public Object getArray(long index, int count) throws SQLException {
        return getArray(index, count, null);
    }

    @Override
    public Object getArray(long index, int count, Map<String, Class<?>> map) throws SQLException {
        open();
        boolean whole = index == 1 && count == Integer.MAX_VALUE;
        if (elements != null && (map == null || map.isEmpty())) {
            return slice(elements, index, count);
        }
        LogicalConnection h = enter();
        try {
            if (whole) {
                return map == null ? delegate.getArray() : delegate.getArray(map);
            }
            return map == null ? delegate.getArray(index, count) : delegate.getArray(index, count, map);
        } catch (SQLException e) {
            throw error(e);
        } finally {
            leave(h);
        }
    }

    @Override
    public ResultSet getResultSet() throws SQLException {
        return rows(getArray(), 1);
    }

    @Override
    public ResultSet getResultSet(Map<String, Class<?>> map) throws SQLException {
        return rows(getArray(map), 1);
    }

    @Override
    public ResultSet getResultSet(long index, int count) throws SQLException {
        return rows(getArray(index, count), index);
    }

    @Override
    public ResultSet getResultSet(long index, int count, Map<String, Class<?>> map) throws SQLException {
        return rows(getArray(index, count, map), index);
    }

    @Override
    public void free() throws SQLException {
        if (!freed) {
            freed = true;
            elements = null;
            freeIfLive(delegate::free);
        }
    }

    /** Elements {@code index} (from 1) to {@code index + count - 1}, in a new array as the driver returns. */
    private Object slice(Object all, long index, int count) throws SQLException {
        int length = java.lang.reflect.Array.getLength(all);
        if (index < 1 || index > length + 1L || count < 0) {
            throw new SQLException("pool '" + poolName + "': array index " + index + " (count " + count
                    + ") is out of range 1.." + length, "2202E"); // 2202E: array subscript error
        }
        int from = (int) (index - 1);
        int n = (int) Math.min(count, length - from);
        Object copy = java.lang.reflect.Array.newInstance(all.getClass().getComponentType(), n);
        if (all.getClass().getComponentType().isPrimitive()) {
            System.arraycopy(all, from, copy, 0, n);
        } else {
            for (int i = 0; i < n; i++) { // each answer the caller's own, as the driver's are: nested arrays and byte[] too
                java.lang.reflect.Array.set(copy, i, deepCopy(java.lang.reflect.Array.get(all, from + i)));
            }
        }
        return copy;
    }

    private static Object deepCopy(Object v) {
        if (v == null || !v.getClass().isArray()) {
            return v;
        }
        int n = java.lang.reflect.Array.getLength(v);
        Object copy = java.lang.reflect.Array.newInstance(v.getClass().getComponentType(), n);
        if (v.getClass().getComponentType().isPrimitive()) {
            System.arraycopy(v, 0, copy, 0, n);
        } else {
            for (int i = 0; i < n; i++) {
                java.lang.reflect.Array.set(copy, i, deepCopy(java.lang.reflect.Array.get(v, i)));
            }
        }
        return copy;
    }

    /**
     * The rows JDBC defines for an array (INDEX from {@code first}, VALUE), disconnected: nothing
     * in them leads back to the driver's statement or connection.
     */
    private ResultSet rows(Object values, long first) throws SQLException {
        int type = getBaseType();
        String typeName = getBaseTypeName();
        CachedRowSet rows = RowSetProvider.newFactory().createCachedRowSet();
        RowSetMetaDataImpl md = new RowSetMetaDataImpl();
        md.setColumnCount(2);
        md.setColumnName(1, "INDEX");
        md.setColumnLabel(1, "INDEX");
        md.setColumnType(1, Types.BIGINT);
        md.setColumnTypeName(1, "int8");
        md.setColumnName(2, "VALUE");
        md.setColumnLabel(2, "VALUE");
        md.setColumnType(2, type);
        md.setColumnTypeName(2, typeName);
        rows.setMetaData(md);
        int n = java.lang.reflect.Array.getLength(values);
        // A CachedRowSet inserts each row before the others: last one first.
        for (int i = n - 1; i >= 0; i--) {
            rows.moveToInsertRow();
            rows.updateLong(1, first + i);
            rows.updateObject(2, java.lang.reflect.Array.get(values, i));
            rows.insertRow();
            rows.moveToCurrentRow();
        }
        rows.beforeFirst();
        return rows;
    }

    @Override
    public String toString() {
        return text != null ? text : super.toString();
    }
}
