package dev.fencing.spring.sample;

import dev.fencing.schedule.Schedule;
import java.time.ZoneId;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

// README schedule sample: begin
@Configuration
class ReportSchedules {
  @Bean
  Schedule nightlyReport() { // one job on "reports" at 03:00 Berlin time, whatever the instances
    return Schedule.builder("nightly-report")
        .cron("0 3 * * *")
        .zone(ZoneId.of("Europe/Berlin"))
        .queue("reports")
        .build();
  }
}
// README schedule sample: end
