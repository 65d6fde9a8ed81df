package example.boot;

/** An email job's result: to whom, at which epoch. */
record Sent(String to, long epoch) {}
