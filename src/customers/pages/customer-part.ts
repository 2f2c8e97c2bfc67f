import type { GroupTagService } from '../../group-tags/group-tag-service.js';
import type { GroupPagePart } from '../../user-groups/pages/group-page-routes.js';
import type { CustomerService } from '../customer-service.js';

/**
 * The Customer API's fields on a group's console page (console/views/group-customer.eta): its emails, tags, demo
 * flag and hierarchy level, and, for a read-write session, a form that changes them as update_customer does. The
 * form offers the environment's tags and the configured levels; as typed and refused, it is shown again.
 */
export function groupCustomer(customers: CustomerService, groupTags: GroupTagService): GroupPagePart {
  return async (principal, userGroupId, extras) => {
    const [found, tags] = await Promise.all([customers.find(principal, userGroupId), groupTags.list(principal)]);
    // An unknown group: the page's own read of it refuses the page, with the message every group page gives.
    if (found === null) return {};
    const { group } = found;
    const current = {
      emails: (group.emails ?? []).join('\n'),
      tags: group.groupTags ?? [],
      demo: group.isDemoGroup === true,
      level: group.hierarchyLevel ?? '',
    };
    return {
      customer: {
        emails: group.emails ?? [],
        groupTags: group.groupTags ?? [],
        isDemoGroup: group.isDemoGroup === true,
        level: group.hierarchyLevel ?? null,
      },
      customerTags: tags.map((tag) => tag.name),
      customerLevels: customers.levelNames,
      customerValues: extras.customerForm?.values ?? current,
      customerError: extras.customerForm?.error ?? null,
    };
  };
}
