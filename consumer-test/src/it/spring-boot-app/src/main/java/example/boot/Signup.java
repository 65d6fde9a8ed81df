package example.boot;

import dev.fencing.FencedQueue;
import org.springframework.stereotype.Service;

@Service
class Signup {
  private final FencedQueue queue;

  Signup(FencedQueue queue) {
    this.queue = queue;
  }

  long register(String email) {
    return queue.enqueue(EmailHandler.EMAILS, new SendEmail(email));
  }
}
