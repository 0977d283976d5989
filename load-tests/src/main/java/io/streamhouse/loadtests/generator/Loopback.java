package io.streamhouse.loadtests.generator;

import java.net.URI;
import java.util.Locale;

/**
 * The generator sends load to this machine only: a mistyped address must not put test traffic on a shared cluster.
 * Hosts are checked by name, without DNS: {@code localhost}, {@code 127.x.x.x} or {@code ::1}.
 */
public final class Loopback {

    public static boolean isLoopbackHost(String host) {
        if (host == null) {
            return false;
        }
        String h = host.toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        return h.equals("localhost") || h.equals("::1") || h.equals("0:0:0:0:0:0:0:1")
                || h.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
    }

    /** @return the URI, if it is http(s) on a loopback host */
    public static URI requireUri(String url, String what) {
        URI uri;
        try {
            uri = URI.create(url.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " '" + url + "' is not a URL: " + e.getMessage());
        }
        if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalArgumentException(what + " must be an http(s) URL, was '" + url + "'");
        }
        if (!isLoopbackHost(uri.getHost())) {
            throw new IllegalArgumentException("the generator sends load to loopback addresses only (localhost, 127.x.x.x, ::1); "
                    + what + " '" + url + "' is not one");
        }
        return uri;
    }

    /** @return the bootstrap list, if every host:port in it is on a loopback host */
    public static String requireBootstrap(String servers) {
        if (servers == null || servers.isBlank()) {
            throw new IllegalArgumentException("bootstrap servers are required");
        }
        for (String raw : servers.split(",")) {
            String s = raw.trim();
            int colon = s.lastIndexOf(':');
            String host = colon > 0 ? s.substring(0, colon) : s;
            if (!isLoopbackHost(host)) {
                throw new IllegalArgumentException("the generator sends load to loopback addresses only (localhost, 127.x.x.x, ::1); "
                        + "bootstrap server '" + s + "' is not one");
            }
        }
        return servers.trim();
    }

    private Loopback() {
    }
}
