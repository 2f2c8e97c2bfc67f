import type { FastifyInstance } from 'fastify';
import { dailyChartFigure } from '../../console/charts/chart-figure.js';
import { sparklineSvg } from '../../console/charts/sparkline.js';
import { groupUrl } from '../../user-groups/pages/group-urls.js';
import type { UsageService } from '../usage-service.js';
import { dailyPoints, dayTotals, shownDays } from './usage-charts.js';

/**
 * GET /console/overview: the environment's sessions per UTC day over the last
 * 30 days as a chart, and its top groups by sessions over those days, each
 * linked to its page with its totals and a trend line. Read-only sessions see
 * the same page: it has no control. Not the landing page after sign-in (that
 * stays the groups list, the console's working page, and costs one query where
 * this one costs a ranking and a series per group); the nav links it first.
 */
export function registerOverviewPage(app: FastifyInstance, usage: UsageService): void {
  app.get('/overview', { schema: { hide: true } }, async (request, reply) => {
    const principal = request.principal;
    const [environment, top] = await Promise.all([usage.environmentDays(principal), usage.topGroupsDays(principal)]);
    const days = environment.usage;
    const { sessions, renewals } = dayTotals(days);
    return reply.view('overview', {
      title: 'Overview',
      session: request.session,
      csrf: reply.generateCsrf(),
      ...shownDays(environment.range),
      // Nothing counted in 30 days (a new environment, or a quiet one): no empty chart, a line saying how counts start.
      counted: sessions + renewals > 0,
      sessions,
      renewals,
      sessionsChart: dailyChartFigure({
        id: 'overview-sessions',
        title: 'Sessions per day',
        unit: 'sessions',
        series: dailyPoints(days, 'sessions'),
      }),
      groups: top.map(({ group, days: groupDays }, i) => ({
        ...group,
        url: groupUrl(group.userGroupId),
        trend: sparklineSvg({
          id: `trend-${i}`,
          label: `${group.userGroupId}, sessions per day`,
          series: dailyPoints(groupDays, 'sessions'),
        }),
      })),
    });
  });
}
