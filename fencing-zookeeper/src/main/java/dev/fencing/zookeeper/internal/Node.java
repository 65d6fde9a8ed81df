package dev.fencing.zookeeper.internal;

import java.nio.charset.StandardCharsets;

/**
 * An owner node as read: who owns it and its identity. The data is the owner's name, a newline and
 * the lease deadline in epoch milliseconds on the owner's clock (for humans and for the owner).
 *
 * @param owner the owner name stored in the node
 * @param czxid the zxid of the transaction that created the node: the acquisition's epoch
 * @param session the session that created the (ephemeral) node
 * @param version the node's data version, for versioned writes
 */
record Node(String owner, long czxid, long session, int version) {

  /** Returns the data an owner node holds for {@code owner} until {@code deadlineMillis}. */
  static byte[] data(String owner, long deadlineMillis) {
    return (owner + "\n" + deadlineMillis).getBytes(StandardCharsets.UTF_8);
  }

  /** Returns the owner name in {@code data}, or the whole text if it has no deadline. */
  static String owner(byte[] data) {
    String text = new String(data, StandardCharsets.UTF_8);
    int newline = text.lastIndexOf('\n');
    return newline < 0 ? text : text.substring(0, newline);
  }

  /** Whether this is the node the acquisition with {@code epoch} created in {@code session}. */
  boolean is(long epoch, long session) {
    return czxid == epoch && this.session == session;
  }
}
