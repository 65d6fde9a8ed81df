package dev.fencing.spring.internal;

import dev.fencing.console.ConsoleRole;
import dev.fencing.console.FencingConsole;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.spring.ConsoleProperties;
import jakarta.servlet.http.HttpServlet;
import java.util.Locale;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The operator's console (fencing-console, an optional dependency of the starter) as a servlet
 * under {@code fencing.console.path}, when {@code fencing.console.enabled=true} in a servlet web
 * application. With Spring Security's filter chain, Spring Security says who a user is (the roles
 * FENCING_VIEWER and FENCING_OPERATOR) and its CSRF token goes into the console's forms; without,
 * the console logs in the users of {@code fencing.console.users}.
 */
@AutoConfiguration(
    after = FencingAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
      "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration"
    })
@ConditionalOnClass(name = {"dev.fencing.console.FencingConsole", "jakarta.servlet.Servlet"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBooleanProperty("fencing.console.enabled")
@ConditionalOnBean(PostgresFencing.class)
@EnableConfigurationProperties(ConsoleProperties.class)
public class FencingConsoleAutoConfiguration {

  /**
   * The console's servlet, mapped to {@code <path>/*}.
   *
   * @throws IllegalStateException if the properties would let nobody in
   */
  @Bean
  ServletRegistrationBean<HttpServlet> fencingConsoleServlet(
      PostgresFencing fencing,
      ConsoleProperties properties,
      ObjectProvider<SpringSecurityConsoleAccess> springSecurity) {
    FencingConsole.Builder builder =
        FencingConsole.builder(fencing).showPayloadsToViewers(properties.showPayloadsToViewers());
    for (ConsoleProperties.Token t : properties.tokens()) {
      builder.token(t.name(), t.token(), role(t.role()));
    }
    SpringSecurityConsoleAccess security = springSecurity.getIfAvailable();
    if (security != null) {
      security.configure(builder, properties);
    } else {
      ownLogin(builder, properties);
    }
    ServletRegistrationBean<HttpServlet> registration =
        new ServletRegistrationBean<>(builder.build().servlet(), properties.path() + "/*");
    registration.setName("fencingConsole");
    return registration;
  }

  private static void ownLogin(FencingConsole.Builder builder, ConsoleProperties properties) {
    if (properties.users().isEmpty()
        && properties.tokens().isEmpty()
        && !properties.allowsAnonymous()) {
      throw new IllegalStateException(
          "fencing.console.enabled=true lets nobody in: set fencing.console.users[0].name,"
              + " .password-hash (from fencing console --hash-password) and .role,"
              + " fencing.console.tokens[0].name, .token and .role, or"
              + " fencing.console.anonymous=viewer; or run Spring Security and grant the roles"
              + " FENCING_VIEWER or FENCING_OPERATOR");
    }
    for (ConsoleProperties.User u : properties.users()) {
      builder.user(u.name(), u.passwordHash(), role(u.role()));
    }
    if (properties.allowsAnonymous()) {
      builder.anonymous(role(properties.anonymous()));
    }
  }

  /** The role a checked property names. */
  static ConsoleRole role(String role) {
    return ConsoleRole.valueOf(role.strip().toUpperCase(Locale.ROOT));
  }

  /** Spring Security's access, when the application runs its filter chain. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.security.web.csrf.CsrfToken")
  @ConditionalOnBean(name = "springSecurityFilterChain")
  static class WithSpringSecurity {

    @Bean
    SpringSecurityConsoleAccess fencingConsoleSpringSecurity() {
      return new SpringSecurityConsoleAccess();
    }
  }
}
