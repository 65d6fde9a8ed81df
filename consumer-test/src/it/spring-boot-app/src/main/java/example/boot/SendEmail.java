package example.boot;

/** An email job's payload: JSON in the store, written by the application's JsonMapper. */
record SendEmail(String to) {}
