package dev.loompool.jdbc.internal.handle;

import dev.loompool.jdbc.internal.physical.PhysicalConnection;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.NClob;
import java.sql.ParameterMetaData;
import java.sql.Ref;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLXML;
import java.sql.Struct;

/**
 * The driver objects a handle lends out, wrapped ({@link LentObject}): which wrapper each gets,
 * the way back into the driver when one is a parameter, and the refusal once its binding ended.
 */
final class LentWrapping {

    private LentWrapping() {
    }

    /** Whether {@code value} is a driver object that may talk to its connection later, and is wrapped. */
    static boolean wraps(Object value) {
        return value instanceof Blob || value instanceof Clob || value instanceof SQLXML || value instanceof Array
                || value instanceof Struct || value instanceof Ref || value instanceof ResultSetMetaData
                || value instanceof ParameterMetaData;
    }

    /**
     * {@code value} wrapped, bound to binding {@code b} of {@code p}. An array read from a result set
     * ({@code fetched}) is read at once, so that it still answers once its connection went back.
     */
    @SuppressWarnings("unchecked")
    static <T> T wrap(LogicalConnection h, PhysicalConnection p, long b, T value, boolean fetched) {
        Object w;
        if (value instanceof NClob v) { // before Clob: an NClob is one
            w = new LentNClob(v, h, p, b);
        } else if (value instanceof Clob v) {
            w = new LentClob(v, h, p, b);
        } else if (value instanceof Blob v) {
            w = new LentBlob(v, h, p, b);
        } else if (value instanceof SQLXML v) {
            w = new LentSQLXML(v, h, p, b);
        } else if (value instanceof Array v) {
            w = new LentArray(v, h, p, b, fetched);
        } else if (value instanceof Struct v) {
            w = new LentStruct(v, h, p, b);
        } else if (value instanceof Ref v) {
            w = new LentRef(v, h, p, b);
        } else if (value instanceof ResultSetMetaData v) {
            w = new LentResultSetMetaData(v, h, p, b);
        } else if (value instanceof ParameterMetaData v) {
            w = new LentParameterMetaData(v, h, p, b);
        } else {
            return value;
        }
        return (T) w;
    }

    /**
     * A parameter on its way into the driver (a setter, {@code setObject}, {@code updateXxx},
     * {@code Blob.position}): one of ours goes in as the driver's own object, which the driver
     * recognises (pgjdbc binds its own arrays and LOBs by their contents), after the check that its
     * binding still holds. Anything else goes in as it is. Allocates nothing.
     */
    @SuppressWarnings("unchecked")
    static <T> T driver(T x) throws SQLException {
        if (x instanceof LentObject<?> l) {
            l.check();
            return (T) l.delegate;
        }
        return x;
    }

    /**
     * A value the driver keeps and uses later ({@code ResultSet.updateXxx}: pgjdbc reads it at
     * {@code updateRow} or {@code insertRow}, asking an array's own connection for its element
     * type, reading a LOB through its connection): one of ours goes in as itself, checked now and
     * again at that later use, which by then may be in another borrower's session (the array's
     * handle ran its next statement, or closed). Anything else goes in as it is.
     */
    static <T> T kept(T x) throws SQLException {
        if (x instanceof LentObject<?> l) {
            l.check();
        }
        return x;
    }

    /** What a call on a lent object gets once the binding it was made under ended. */
    static SQLException gone(String poolName, String kind) {
        return new SQLException("pool '" + poolName + "': this " + kind + " belongs to a connection its handle "
                + "no longer holds (the handle was closed, reclaimed, or its transaction and statement ended and the "
                + "connection went back to the pool, where another borrower may have it now); read or write it while "
                + "its handle is open, inside the transaction or with the statement it came from still open", "HY010");
    }
}
