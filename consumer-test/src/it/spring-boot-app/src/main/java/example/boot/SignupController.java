package example.boot;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
class SignupController {
  private final Signup signup;

  SignupController(Signup signup) {
    this.signup = signup;
  }

  @PostMapping("/signup")
  long signup(@RequestParam String email) {
    return signup.register(email); // the job's id
  }
}
