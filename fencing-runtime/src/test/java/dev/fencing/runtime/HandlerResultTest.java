package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.OutboxMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A handler's result and messages are checked as the queue checks a completion's. */
class HandlerResultTest {

  private static final OutboxMessage MAIL = new OutboxMessage("mail", "ada@example.com", "{}");

  @Test
  void aResultWithMessagesKeepsTheirOrderInACopy() {
    List<OutboxMessage> messages = new ArrayList<>(List.of(MAIL, MAIL));
    HandlerResult work = new HandlerResult("{}", messages);
    messages.clear();
    assertThat(work.messages()).containsExactly(MAIL, MAIL);
    assertThat(HandlerResult.of("{}").messages()).isEmpty();
    assertThat(HandlerResult.of("{\"n\": 1}", MAIL))
        .isEqualTo(new HandlerResult("{\"n\": 1}", List.of(MAIL)));
  }

  @Test
  void badInputIsRefusedNamingIt() {
    assertThatThrownBy(() -> HandlerResult.of(null, MAIL))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("result must be JSON, but was null");
    assertThatThrownBy(() -> HandlerResult.of("{}", (OutboxMessage[]) null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("messages must be a list, but was null");
    assertThatThrownBy(() -> HandlerResult.of("{}", MAIL, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("messages[1] must not be null");
    assertThatThrownBy(() -> new HandlerResult("{}", Collections.nCopies(101, MAIL)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("messages must hold at most 100 messages, but held 101");
  }
}
