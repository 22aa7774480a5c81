package dev.loompool.spring;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code loompool.*} keys the configuration metadata on the class path lists, with their types:
 * every key loompool reads is described there, wherever it is bound, so it is the one list of
 * keys {@link UnknownKeys} checks against. Read with a pattern over the metadata's flat objects
 * rather than Boot's {@code BasicJsonParser}, which splits a description that holds an escaped
 * quote, and without a JSON library the application may not have.
 */
final class KeyMetadata {

    private static final String[] RESOURCES = {"META-INF/spring-configuration-metadata.json",
        "META-INF/additional-spring-configuration-metadata.json"};
    private static final String STRING = "\"(?:[^\"\\\\]|\\\\.)*\"";
    /** An object with no object inside it: a property, a group or a hint value. */
    private static final Pattern FLAT_OBJECT = Pattern.compile("\\{(?:[^{}\"]|" + STRING + ")*}");
    /**
     * A deprecated key's {@code "deprecation": {"level": …, "replacement": …}}, the one object the
     * configuration processor writes inside a property: taken out, the property is flat again (a
     * deprecated key is still bound, so still a key).
     */
    private static final Pattern DEPRECATION = Pattern.compile("\"deprecation\"\\s*:\\s*\\{(?:[^{}\"]|" + STRING + ")*}");
    private static final Pattern NAME = Pattern.compile("\"name\"\\s*:\\s*\"(" + PoolKeys.PREFIX + "\\.[^\"]+)\"");
    private static final Pattern TYPE = Pattern.compile("\"type\"\\s*:\\s*\"([^\"]+)\"");

    private KeyMetadata() {
    }

    /** Key to type; a group (no type) is not a key. */
    static Map<String, String> loompoolKeys(ClassLoader loader) {
        Map<String, String> keys = new TreeMap<>();
        try {
            for (String resource : RESOURCES) {
                Enumeration<URL> urls = loader.getResources(resource);
                while (urls.hasMoreElements()) {
                    String json;
                    try (InputStream in = urls.nextElement().openStream()) {
                        json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                    }
                    if (json.contains("\"" + PoolKeys.PREFIX + ".")) { // else another library's: not worth reading
                        read(json, keys);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the configuration metadata on the class path", e);
        }
        return keys;
    }

    private static void read(String json, Map<String, String> keys) {
        Matcher object = FLAT_OBJECT.matcher(DEPRECATION.matcher(json).replaceAll("\"deprecation\": null"));
        while (object.find()) {
            Matcher name = NAME.matcher(object.group());
            Matcher type = TYPE.matcher(object.group());
            if (name.find() && type.find()) {
                keys.put(name.group(1), type.group(1));
            }
        }
    }
}
